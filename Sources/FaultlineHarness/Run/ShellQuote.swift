import Foundation

/// Quotes words for a POSIX shell so a printed command can be pasted back.
enum ShellQuote {
    /// `word` as is when it is safe, else in single quotes.
    static func quote(_ word: String) -> String {
        let safe = word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0)) }
        if safe && !word.isEmpty { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// A command line: `env A=1 B=2 prog arg…` when there are variables.
    static func commandLine(_ argv: [String], env: [(String, String)] = []) -> String {
        let vars = env.map { quote("\($0.0)=\($0.1)") }
        return ((vars.isEmpty ? [] : ["env"] + vars) + argv.map(quote)).joined(separator: " ")
    }
}
