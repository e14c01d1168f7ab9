import ArgumentParser

/// Placeholder for `faultline report` (being built).
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "report", abstract: "(not yet)")
    func run() async throws { throw ValidationError("faultline report is not built yet") }
}
