import Foundation
import Testing

/// A bad option or option value, for any subcommand: exactly one line on
/// stderr naming it (and where the help is), exit 64, nothing on stdout.
@Suite struct OptionErrorTests {
    @Test(arguments: [
        (["run", "--bogus"], "faultline: Unknown option '--bogus'. Did you mean '--jobs'? (see 'faultline run --help')"),
        (["run", "--jobs", "abc"], "faultline: The value 'abc' is invalid for '--jobs <jobs>' (see 'faultline run --help')"),
        (["run", "--jobs", "-1"], "faultline: Missing value for '--jobs <jobs>' (see 'faultline run --help')"),
        (["run", "--repeat", "0"], "faultline: --repeat must be at least 1, got 0 (see 'faultline run --help')"),
        (["run", "--repeat", "999999999999"], "faultline: --repeat must be at most 100000, got 999999999999 (see 'faultline run --help')"),
        (["list", "--scenarios"], "faultline: Missing value for '--scenarios <dir>' (see 'faultline list --help')"),
        (["report", "show"], "faultline: Missing expected argument '<report>' (see 'faultline report show --help')"),
        (["bench", "--threshold", "0"], "faultline: --threshold 0.0 must be a fraction above 0, e.g. 0.1 for 10 % (see 'faultline bench --help')"),
        (["exec", "--memory-limit", "-5", "--", "/bin/true"], "faultline: Missing value for '--memory-limit <size>' (see 'faultline exec --help')"),
        (["run", "--build-dir", "/nonexistent", "x"], "faultline: --build-dir /nonexistent: no such folder; pass the folder with the built victims and libraries (e.g. .build/debug) (see 'faultline run --help')"),
        (["list", "--build-dir", "/etc/passwd"], "faultline: --build-dir /etc/passwd is not a folder; pass the folder with the built victims and libraries (e.g. .build/debug) (see 'faultline list --help')"),
        (["bench", "--build-dir", "", "crash"], "faultline: --build-dir '' names no folder; pass the folder with the built victims and libraries (e.g. .build/debug) (see 'faultline bench --help')"),
        // Two lines, exit 2, naming "/nonexistent:1" as if a file had a bad line.
        (["run", "--scenarios", "/nonexistent"], "faultline: --scenarios /nonexistent: no such folder; pass the folder that holds the scenario files (*.yaml; docs/scenarios.md), e.g. --scenarios Scenarios (see 'faultline run --help')"),
        (["list", "--scenarios", "/etc/passwd"], "faultline: --scenarios /etc/passwd is not a folder; pass the folder that holds the scenario files (*.yaml; docs/scenarios.md), e.g. --scenarios Scenarios (see 'faultline list --help')"),
        (["doctor", "extra"], "faultline: Unexpected argument 'extra' (see 'faultline doctor --help')"),
        (["nosuch"], "faultline: Unexpected argument 'nosuch' (see 'faultline --help')"),
    ])
    func badOptionIsOneLine(arguments: [String], message: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = try runProgram(try BuildProducts.path("faultline"), arguments, directory: dir)
        #expect(result.status == 64)
        #expect(result.stderr == message + "\n")
        #expect(result.stdout.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    /// Help still goes to stdout, whole, with status 0.
    @Test func helpIsUnchanged() throws {
        let result = try runProgram(try BuildProducts.path("faultline"), ["run", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE: faultline run"))
        #expect(result.stderr.isEmpty)
    }
}
