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
