import ArgumentParser

/// Placeholder for `faultline exec` (being built).
struct ExecCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "exec", abstract: "(not yet)")
    func run() async throws { throw ValidationError("faultline exec is not built yet") }
}
