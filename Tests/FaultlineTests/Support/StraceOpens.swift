import Foundation

/// The `open` and `openat` lines strace prints for `/bin/true` run with
/// `library` preloaded (reports into `dir`): what a preloaded library
/// reads when a process starts and ends. Needs `ProcTaskPathTests.strace`.
func straceOpensOfTrue(preloading library: String, in dir: String) throws -> [Substring] {
    let run = try runProgram(ProcTaskPathTests.strace!, ["-f", "-qq", "-e", "trace=open,openat", "-o", "\(dir)/trace", "/bin/true"],
                             environment: ["LD_PRELOAD": try BuildProducts.path(library), "FAULTLINE_REPORT_DIR": "\(dir)/reports"])
    guard run.status == 0 else { throw StraceFailed(stderr: run.stderr) }
    return try String(contentsOfFile: "\(dir)/trace", encoding: .utf8).split(separator: "\n")
}

/// strace, or /bin/true under it, did not exit 0.
struct StraceFailed: Error, CustomStringConvertible {
    /// What it said.
    var stderr: String
    var description: String { "strace /bin/true failed: \(stderr)" }
}
