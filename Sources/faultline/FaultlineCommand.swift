import ArgumentParser

/// The `faultline` command: runs the scenario suite, runs programs under the
/// agent, and shows reports.
@main
struct FaultlineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "faultline",
        abstract: "Detect and report crashes, exceptions, hangs, leaks, OOM kills and memory errors.",
        discussion: """
            faultline run                 run the whole scenario suite
            faultline exec -- ./prog      run a program with every detector injected
            faultline report list [DIR]   list reports; `report show ID` shows one
            faultline doctor              what this machine supports (cgroups, unwinder, …)
            """,
        subcommands: [
            RunCommand.self, ListCommand.self, ExecCommand.self, ReportCommand.self, DoctorCommand.self, CGroupExecCommand.self, BenchCommand.self,
        ]
    )
}
