import ArgumentParser

/// Placeholder for `faultline list` (being built).
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "(not yet)")
    func run() async throws { throw ValidationError("faultline list is not built yet") }
}
