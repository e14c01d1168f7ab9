import Foundation
import XCTest
@testable import FaultlineHarness

/// The detect bench's readers of the peer tools' output, on real output
/// captured from Fixtures/detect/fixture-victim.c.txt (see its README).
final class DetectParserTests: XCTestCase {
    private func fixture(_ name: String) throws -> Data {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/detect")
        return try Data(contentsOf: dir.appendingPathComponent(name))
    }

    func testValgrindXMLDoubleFreeNamesClassAndCulprit() throws {
        let v = DetectValgrindXML.parse(try fixture("valgrind-double-free.xml"))
        XCTAssertEqual(v.className, "double_free")
        XCTAssertEqual(v.frames, ["free", "fixture_free_again", "main"])
        XCTAssertTrue(v.names(culprit: "fixture_free_again"))
    }

    func testValgrindXMLWithoutErrorIsMissed() {
        let clean = Data("<?xml version=\"1.0\"?><valgrindoutput><protocolversion>4</protocolversion></valgrindoutput>".utf8)
        XCTAssertNil(DetectValgrindXML.parse(clean).className)
    }

    func testASanHeapBufferOverflow() throws {
        let v = DetectSanitizerReport.parse(String(decoding: try fixture("asan-heap-buffer-overflow.txt"), as: UTF8.self))
        XCTAssertEqual(v.className, "heap_buffer_overflow")
        XCTAssertEqual(v.frames.first, "fixture_overflow")
        XCTAssertFalse(v.names(culprit: "fixture_leak"))
    }

    func testLSanLeakSkipsInterceptorFrame() throws {
        let v = DetectSanitizerReport.parse(String(decoding: try fixture("lsan-leak.txt"), as: UTF8.self))
        XCTAssertEqual(v.className, "leak")
        XCTAssertEqual(v.frames.first, "fixture_leak")
    }

    func testCleanStderrIsMissed() {
        XCTAssertNil(DetectSanitizerReport.parse("victim: done\n").className)
    }
}

/// The readers of Electric Fence, DUMA and glibc (abort message + gdb's
/// backtrace) and valgrind's wild access and fatal signal, on real output
/// captured from Fixtures/detect (see its README).
final class DetectSignalParserTests: XCTestCase {
    private func text(_ name: String) throws -> String {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/detect")
        return String(decoding: try Data(contentsOf: dir.appendingPathComponent(name)), as: UTF8.self)
    }

    func testEFenceOverflowIsAGuardFaultAtTheWrite() throws {
        let out = try text("efence-overflow-gdb.txt")
        let v = DetectSignalReport.parse(stderr: out, gdb: out, signaled: true)
        XCTAssertEqual(v.className, "guard_fault")
        XCTAssertEqual(v.frames, ["fixture_overflow", "main"])
    }

    func testEFenceDoubleFreeIsAnInvalidFreeWithTheCaller() throws {
        let out = try text("efence-double-free-gdb.txt")
        let v = DetectSignalReport.parse(stderr: out, gdb: out, signaled: true)
        XCTAssertEqual(v.className, "invalid_free")
        XCTAssertTrue(v.names(culprit: "fixture_free_again"))
        XCTAssertEqual(v.frames.first, "__GI_kill")
    }

    func testDUMADoubleFreeIsNamed() throws {
        let out = try text("duma-double-free-gdb.txt")
        let v = DetectSignalReport.parse(stderr: out, gdb: out, signaled: true)
        XCTAssertEqual(v.className, "double_free")
        XCTAssertTrue(v.names(culprit: "fixture_free_again"))
    }

    func testDUMAFreeMismatchIsAnAllocDeallocMismatch() throws {
        // Real output of a new[] released by free() under libduma.so.0 here.
        let out = try text("duma-free-mismatch.txt")
        XCTAssertEqual(DetectSignalReport.parse(stderr: out, gdb: "", signaled: true).className, "alloc_dealloc_mismatch")
    }

    func testGlibcCheckNamesHeapCorruption() throws {
        let out = try text("glibc-double-free-gdb.txt")
        let v = DetectSignalReport.parse(stderr: out, gdb: out, signaled: true)
        XCTAssertEqual(v.className, "heap_corruption")
        XCTAssertEqual(Array(v.frames.suffix(2)), ["fixture_free_again", "main"])
        XCTAssertEqual(DetectSignalReport.parse(stderr: try text("glibc-tcache-double-free.txt"), gdb: "", signaled: true).className, "double_free")
    }

    func testCleanExitWithoutMessageIsMissed() {
        XCTAssertNil(DetectSignalReport.parse(stderr: "victim: done\n", gdb: "", signaled: false).className)
        XCTAssertEqual(DetectSignalReport.parse(stderr: "", gdb: "#0  free_check (mem=0x1) at malloc-check.c:3\n#1  0x1 in victim_x () at v.c:1\n",
                                                signaled: true).className, "heap_corruption")
    }

    func testValgrindWildWriteAndFatalSignalAreACrash() throws {
        let all = DetectValgrindXML.parseAll(Data(try text("valgrind-null-write.xml").utf8))
        XCTAssertEqual(all.map(\.className), ["invalid_access", "crash"])
        XCTAssertEqual(all.last?.frames, ["fixture_null", "main"])
        XCTAssertTrue(DetectClasses.accepts("crash", all[0].className!))
        XCTAssertFalse(DetectClasses.accepts("use_after_free", all[0].className!))
    }
}
