import ArgumentParser

/// Placeholder for `faultline doctor` (being built with issue 7).
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "doctor", abstract: "(not yet)")
    func run() async throws { throw ValidationError("faultline doctor is not built yet") }
}
