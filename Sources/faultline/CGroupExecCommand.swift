import ArgumentParser
import Faultline
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `faultline __cgroup-exec DIR -- CMD [ARGS…]` (hidden): joins the cgroup
/// at DIR and execs CMD, so CMD runs limited from its first instruction.
/// The runner and `faultline exec --memory-limit` spawn it on cgroup v2,
/// where a process cannot be started directly inside another cgroup with
/// posix_spawn. Exit status 125 when joining fails, 127/126 when CMD
/// cannot be run.
struct CGroupExecCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "__cgroup-exec", abstract: "Join a cgroup, then exec a command (internal).", shouldDisplay: false)

    @Argument(help: "The cgroup directory to join.")
    var cgroup: String

    @Option(name: .customLong("env"), help: "NAME=VALUE to set just before exec (the preload variables, which must not load into this trampoline).")
    var environment: [String] = []

    @Argument(parsing: .captureForPassthrough, help: "The command (after --).")
    var command: [String] = []

    func run() throws {
        let argv = command.first == "--" ? Array(command.dropFirst()) : command
        guard let program = argv.first else { fail("__cgroup-exec needs a command after --", 125) }
        do {
            try CGroupDirectory(path: cgroup, version: .v2).addProcess(getpid())
        } catch {
            fail("cannot join \(cgroup): \(error)", 125)
        }
        for entry in environment {
            guard let eq = entry.firstIndex(of: "="), eq != entry.startIndex else { fail("--env '\(entry)' is not NAME=VALUE", 125) }
            setenv(String(entry[..<eq]), String(entry[entry.index(after: eq)...]), 1)
        }
        let cargs = argv.map { strdup($0) } + [nil]
        execvp(program, cargs)
        let e = errno
        fail("\(program): cannot run it: \(String(cString: strerror(e)))", e == ENOENT ? 127 : 126)
    }

    private func fail(_ message: String, _ status: Int32) -> Never {
        let line = "faultline: \(message)\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
        Foundation.exit(status)
    }
}
