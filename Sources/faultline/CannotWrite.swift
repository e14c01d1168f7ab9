import Faultline
import Foundation

/// Ends a command whose output cannot be created: `faultline: message` on
/// stderr, exit 73 (EX_CANTCREAT).
func exitCannotWrite(_ message: String) -> Never {
    Console.err("faultline: \(OneLine.escaped(message))\n")
    Foundation.exit(73)
}

/// Before a command's work: ends it (exit 73) when one of the files its
/// options name (`--json FILE`, …; nil when not given) cannot be created.
func exitUnlessWritable(_ files: [(option: String, path: String?)]) {
    for (option, path) in files {
        if let path, let why = OutputLocation.problem(writingFile: path) { exitCannotWrite("\(why); pass another \(option)") }
    }
}
