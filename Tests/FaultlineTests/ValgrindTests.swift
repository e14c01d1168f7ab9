import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A crash under valgrind with the agent preloaded: every error memcheck
/// reports is the program's own or one docs/valgrind.supp explains
/// (docs/agent.md, "Running under valgrind") — libunwind's page probe,
/// the image list reading valgrind's own mapping, the sample stack's scrub.
/// A new complaint from Faultline's code fails here.
@Suite struct ValgrindTests {
    static let valgrind = ["/usr/bin/valgrind", "/usr/local/bin/valgrind"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let objcopy = ["/usr/bin/objcopy", "/usr/local/bin/objcopy"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The suppressions file the docs point to.
    static let suppressions = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/valgrind.supp").path

    /// memcheck's error reports in `stderr`, each as its lines without the
    /// `==PID==` prefix.
    private func errors(in stderr: String) -> [[String]] {
        let kinds = ["Invalid ", "Syscall param ", "Conditional jump", "Use of uninitialised", "Mismatched ",
                     "Source and destination", "Jump to the invalid", "Argument "]
        var found: [[String]] = [], current: [String]? = nil
        for line in stderr.split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix("==") else { continue }
            let text: String = line.dropFirst(2).range(of: "== ").map { String(line[$0.upperBound...]) } ?? ""
            if kinds.contains(where: { text.hasPrefix($0) }) {
                if let c = current { found.append(c) }
                current = [text]
            } else if text.allSatisfy({ $0 == " " }) {
                if let c = current { found.append(c) }
                current = nil
            } else {
                current?.append(text)
            }
        }
        if let c = current { found.append(c) }
        return found
    }

    @Test(.enabled(if: valgrind != nil, "valgrind is not installed (apt-get install valgrind)"),
          .enabled(if: objcopy != nil, "objcopy is not installed (binutils)"),
          arguments: ["thread-crash", "abort"])
    func crashUnderValgrindShowsOnlyTheProgramsOwnError(mode: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // valgrind 3.19 gives up on the DWARF 5 debug info of SwiftPM's
        // executables ("Possibly corrupted debuginfo file"): a copy without it.
        let victim = "\(dir)/victim-c"
        try FileManager.default.copyItem(atPath: try BuildProducts.path("victim-c"), toPath: victim)
        let stripped = try runProgram(Self.objcopy!, ["--strip-debug", victim])
        try #require(stripped.status == 0, "\(stripped.stderr)")
        let run = try runProgram(Self.valgrind!, ["--suppressions=\(Self.suppressions)", victim, mode], environment: [
            "LD_PRELOAD": try BuildProducts.path("libFaultlineAgentPreload.so"), "FAULTLINE_REPORT_DIR": "\(dir)/reports",
        ])
        #expect(run.stderr.contains("ERROR SUMMARY:"), "valgrind did not finish: \(run.stderr)")
        // The victim's NULL store is its own error (thread-crash); abort has none.
        let foreign = errors(in: run.stderr).filter { !$0.joined(separator: "\n").contains("victim_null_deref") }
        #expect(foreign.isEmpty, "\(foreign.map { $0.joined(separator: "\n") }.joined(separator: "\n\n"))")
        let reports = (try? FileManager.default.contentsOfDirectory(atPath: "\(dir)/reports")) ?? []
        #expect(reports.filter { $0.hasPrefix("crash-") }.count == 1, "\(reports) \(run.stderr)")
    }
}
