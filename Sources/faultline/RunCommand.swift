import ArgumentParser

/// Placeholder for `faultline run` (being built).
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "(not yet)")
    func run() async throws { throw ValidationError("faultline run is not built yet") }
}
