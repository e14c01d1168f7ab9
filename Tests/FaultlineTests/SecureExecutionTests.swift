import Faultline
import Foundation
import Testing

/// A setuid-root program that links the agent, run by an unprivileged
/// user (secure execution, AT_SECURE): the caller's FAULTLINE_REPORT_DIR
/// must not choose where root creates folders and writes reports (glibc
/// drops LD_PRELOAD for such programs; the agent is as strict for its own
/// variables).
@Suite struct SecureExecutionTests {
    static let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Why a setuid-root copy cannot be made and run here, or nil.
    static var skipReason: String? {
        if getuid() != 0 { return "needs root, to make a setuid-root copy of victim-c-linked" }
        if setpriv == nil { return "needs setpriv (util-linux) to run it as nobody" }
        var fs = statvfs()
        if statvfs(NSTemporaryDirectory(), &fs) == 0 && fs.f_flag & UInt(ST_NOSUID) != 0 {
            return "\(NSTemporaryDirectory()) is mounted nosuid: a setuid copy there runs without AT_SECURE"
        }
        return nil
    }

    /// victim-c-linked copied, setuid root, into a folder nobody can reach
    /// (the checkout's parents may be 0700).
    private func setuidVictim(in dir: String) throws -> String {
        let copy = dir + "/victim-c-linked"
        try FileManager.default.copyItem(atPath: try BuildProducts.path("victim-c-linked"), toPath: copy)
        #expect(chown(copy, 0, 0) == 0)
        #expect(chmod(copy, 0o4755) == 0)
        return copy
    }

    @Test(.enabled(if: SecureExecutionTests.skipReason == nil, "SKIP: \(SecureExecutionTests.skipReason ?? "")"))
    func theCallersReportDirIsIgnored() throws {
        let dir = try makeTemporaryDirectory("faultline-setuid")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(chmod(dir, 0o755) == 0)
        let victim = try setuidVictim(in: dir)
        let existing = dir + "/roots-folder"  // root may write here, nobody may not
        #expect(mkdir(existing, 0o700) == 0)
        for (name, target) in [("new", dir + "/chosen/by/the/caller"), ("existing", existing)] {
            // A test on another thread that forks while the copy's write
            // descriptor is open makes the exec fail with ETXTBSY until that
            // child execs: tried again, briefly.
            var run = try runProgram(try #require(Self.setpriv),
                                     ["--reuid=65534", "--regid=65534", "--clear-groups", victim, "crash"],
                                     environment: ["FAULTLINE_REPORT_DIR": target, "FAULTLINE_SUPPRESSIONS": "/etc/shadow"])
            for _ in 0..<20 where run.stderr.contains("Text file busy") {
                usleep(100_000)
                run = try runProgram(try #require(Self.setpriv),
                                     ["--reuid=65534", "--regid=65534", "--clear-groups", victim, "crash"],
                                     environment: ["FAULTLINE_REPORT_DIR": target, "FAULTLINE_SUPPRESSIONS": "/etc/shadow"])
            }
            #expect(run.signaled && run.status == SIGSEGV, "\(name): \(run.status) \(run.stderr)")
            #expect(run.stderr.contains("\"schema\":\"faultline.report\""), "\(name): the report follows on stderr: \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/chosen"), "root made the caller's folder")
            #expect(try FileManager.default.contentsOfDirectory(atPath: existing).isEmpty, "root wrote into \(existing)")
            let said = run.stderr.split(separator: "\n").filter { $0.contains("secure execution") && $0.contains("ignoring") }
            #expect(said.count == 1, "\(run.stderr)")
            #expect(said.first?.contains("FAULTLINE_REPORT_DIR") == true && said.first?.contains("FAULTLINE_SUPPRESSIONS") == true, "\(said)")
        }
    }
}
