import Foundation
import Testing

/// FAULTLINE_RUNNER_KILL_AFTER_MS that is not a number: one line saying the
/// runner will not kill the victim (it was ignored without a word, and the
/// victim ran to its timeout with nothing saying why).
@Suite struct RunnerKillOptionTests {
    @Test(.enabled(if: CGroupHost.memoryProblem == nil, "SKIP: \(CGroupHost.memoryProblem ?? "")"))
    func badValueIsNamed() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "name: t.kill\nvictim: /bin/sleep\nargs: [\"0.2\"]\nenv: {FAULTLINE_RUNNER_KILL_AFTER_MS: 30O}\nmemory_limit: 64M\nexpect: {exit: {code: 0}}\n"
            .write(toFile: "\(dir)/t.kill.yaml", atomically: true, encoding: .utf8)
        let faultline = try BuildProducts.path("faultline")
        let result = try runProgram(faultline, ["run", "--scenarios", dir, "--build-dir", (faultline as NSString).deletingLastPathComponent,
                                                "--artifacts", "\(dir)/artifacts"])
        #expect(result.status == 0, "\(result.stdout)")
        let lines = result.stderr.split(separator: "\n").filter { $0.contains("FAULTLINE_RUNNER_KILL_AFTER_MS") }
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("faultline: FAULTLINE_RUNNER_KILL_AFTER_MS=30O is not a number of milliseconds (0 or more); the runner does not kill pid ") == true)
    }
}
