import ArgumentParser
import Faultline

extension ReportCommand {
    /// `faultline report signature-rules`: prints the built-in rules, a
    /// starting point for a file of one's own (`--signature-rules FILE`).
    struct SignatureRulesCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "signature-rules",
            abstract: "Print the built-in signature rules (docs/export.md, \"Signatures\").")

        func run() throws {
            print(DefaultSignatureRules.text)
        }
    }
}
