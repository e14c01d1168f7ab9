import Faultline
import Foundation
import Testing

/// The `capture:` line names the unwinder that took the stacks shown, read
/// from the report: the malloc shim takes its heap stacks by frame pointers,
/// and by libunwind only where a walk cannot leave frame 0, unless told
/// otherwise, while the report's `capture.unwinder` names the
/// unwinder loaded for threads (libunwind), and the line said `unwinder
/// libunwind` for leak reports that held no stack libunwind had taken.
@Suite struct CaptureLineTests {
    private func captureLine(_ path: String) throws -> String {
        let text = ReportFormatter().format(try ReportStore.load(path: path))
        return try #require(text.split(separator: "\n").last { $0.hasPrefix("capture: ") }.map(String.init), "\(text)")
    }

    @Test func aLeakReportNamesTheShimsUnwinder() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = try runProgram(try BuildProducts.path("victim-leak"), ["list"], environment: [
            "FAULTLINE_REPORT_DIR": dir, "LD_PRELOAD": try BuildProducts.path("libFaultlineMallocShim.so"), "FAULTLINE_DETECTORS": "leaks",
        ], directory: dir)
        #expect(run.status == 0)
        let path = try Victims.onlyReport(in: dir)
        let report = try ReportStore.load(path: path)
        // The premise: the two fields differ in such a report.
        #expect(report.capture?.unwinder == "libunwind")
        #expect(report.sections["shim"]?["stack_unwinder"]?.stringValue == "frame_pointer_then_libunwind")
        #expect(try captureLine(path) == "capture: unwinder frame_pointer_then_libunwind (the malloc shim's heap stacks)")
    }

    @Test func aHeapErrorNamesBothUnwinders() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (path, _) = try Victims.heap("double-free-lines", in: dir)
        #expect(try captureLine(path) == "capture: unwinder libunwind (threads), frame_pointer_then_libunwind (the malloc shim's heap stacks)")

        let same = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: same) }
        _ = try Victims.heapRun("double-free-lines", in: same, environment: ["FAULTLINE_MALLOC_UNWINDER": "libunwind"])
        #expect(try captureLine(try Victims.onlyReport(in: same)) == "capture: unwinder libunwind")
    }

    @Test func aCrashStillNamesItsThreadUnwinder() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (path, _) = try Victims.crashC("null-deref", in: dir)
        #expect(try captureLine(path).hasPrefix("capture: unwinder libunwind, report written in "))
    }

    /// A crash while another thread is parked inside a dl_iterate_phdr
    /// callback: the handler takes every stack by frame pointers at once
    /// (libunwind would wait for the dynamic linker's lock until the
    /// deadline), and the report says so, and why.
    @Test func aCrashBesideTheLoaderLockNamesFramePointersAndWhy() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (path, run) = try Victims.crashC("crash-holding-loader-lock", in: dir)
        #expect(run.signaled && run.status == SIGSEGV)
        let report = try ReportStore.load(path: path)
        #expect(report.capture?.unwinder == "frame_pointer")
        #expect(report.capture?.unwinderReason == "another thread is inside dl_iterate_phdr")
        #expect(report.sections["handler_stalled"] == nil)
        #expect((report.threads ?? []).contains { $0.name == "lock-holder" && !$0.frames.isEmpty })
        #expect(try captureLine(path).hasPrefix("capture: unwinder frame_pointer (another thread is inside dl_iterate_phdr), report written in "))
    }
}
