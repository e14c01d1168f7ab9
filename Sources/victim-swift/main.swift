// victim-swift: a Swift program that links the Faultline agent (the
// "linked" mode) and injects one fault per subcommand.
import FaultlineAgent

#if canImport(Glibc)
import Glibc
#endif

/// One victim subcommand.
struct VictimCommand {
    let name: String
    let help: String
    let run: ([String]) -> Void
}

let allCommands: [VictimCommand] = crashCommands + heapCommands + hangCommands

func usage() -> Never {
    var text = "usage: victim-swift COMMAND [ARGS]\ncommands:\n"
    for c in allCommands { text += "  \(c.name + String(repeating: " ", count: max(1, 26 - c.name.count))) \(c.help)\n" }
    fputs(text, stderr)
    exit(2)
}

let args = CommandLine.arguments
guard args.count >= 2 else { usage() }
guard let command = allCommands.first(where: { $0.name == args[1] }) else {
    fputs("victim-swift: unknown command '\(args[1])'\n", stderr)
    usage()
}
// Linked mode: install explicitly, as an app would at start-up. The report
// directory comes from FAULTLINE_REPORT_DIR (set by the runner).
if getenv("FAULTLINE_REPORT_DIR") != nil || getenv("VICTIM_INSTALL_AGENT") != nil {
    do {
        try FaultlineAgent.install(captureStderr: getenv("FAULTLINE_CAPTURE_STDERR") != nil)
    } catch {
        fputs("victim-swift: agent not installed: \(error)\n", stderr)
        exit(3)
    }
}
command.run(Array(args.dropFirst(2)))
fputs("victim-swift: the fault did not happen\n", stderr)
exit(1)
