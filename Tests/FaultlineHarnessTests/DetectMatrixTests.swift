import Foundation
import XCTest
@testable import FaultlineHarness

/// The detection matrix of a small filter, run for real: the package's
/// victims under every tool installed here (a column not installed must
/// say so; the test skips only when Faultline's own libraries are missing).
final class DetectMatrixTests: XCTestCase {
    private func suite() throws -> (ScenarioSuite, String) {
        let build = Products.build
        guard let root = build.packageRoot(), let dir = SuiteLocation.scenariosDirectory(nil, build: build) else {
            throw XCTSkip("no package checkout around \(build.path)")
        }
        return (ScenarioSuite.load(directory: dir), root)
    }

    func testSelectionTakesClassAndCulpritFromTheScenario() throws {
        let (suite, _) = try suite()
        let cases = DetectCase.select(suite.scenarios)
        let df = try XCTUnwrap(cases.first { $0.scenario.name == "memory.double-free" })
        XCTAssertEqual(df.bugClass, "double_free")
        XCTAssertEqual(df.culprit, "victim_free_again")
        let guarded = try XCTUnwrap(cases.first { $0.scenario.name == "memory.guard-read-past-end" })
        XCTAssertEqual(guarded.statedClass, "heap_buffer_overflow")
        let leak = try XCTUnwrap(cases.first { $0.scenario.name == "leaks.lost-list" })
        XCTAssertEqual(leak.culprit, "make_list")
        XCTAssertFalse(cases.contains { $0.scenario.victim.contains("/") || !$0.scenario.requires.isEmpty })
    }

    func testSmallMatrixUnderEveryInstalledTool() throws {
        let (suite, root) = try suite()
        let names = ["memory.double-free", "memory.heap-overflow-one", "leaks.lost-list"]
        let cases = DetectCase.select(suite.scenarios).filter { names.contains($0.scenario.name) }
        XCTAssertEqual(cases.count, names.count)
        let tools = DetectTool.all(build: Products.build)
        guard tools[0].unavailable == nil else { throw XCTSkip(tools[0].unavailable!) }
        let m = DetectMatrixRunner(build: Products.build, packageRoot: root, progress: { _ in }).run(cases, tools: tools, filters: names)
        XCTAssertEqual(m.results.count, cases.count * tools.count)
        for t in tools where t.unavailable != nil {
            XCTAssertTrue(m.results.filter { $0.tool == t.id }.allSatisfy { $0.outcome == .unavailable }, t.id)
        }
        // Faultline's default column catches each at the scenario's own frame.
        for n in names { XCTAssertEqual(m.result(n, "faultline")?.outcome, .rightFrame, "\(n): \(String(describing: m.result(n, "faultline")))") }
        func peer(_ tool: String, _ name: String, _ outcome: DetectOutcome, _ className: String?) {
            guard let r = m.result(name, tool), r.outcome != .unavailable else { return }
            XCTAssertEqual(r.outcome, outcome, "\(tool) on \(name): \(r)")
            XCTAssertEqual(r.className, className, "\(tool) on \(name)")
        }
        peer("valgrind", "memory.double-free", .rightFrame, "double_free")
        peer("valgrind", "leaks.lost-list", .rightFrame, "leak")
        peer("asan", "memory.heap-overflow-one", .rightFrame, "heap_buffer_overflow")
        peer("asan", "leaks.lost-list", .rightFrame, "leak")
        peer("duma", "memory.double-free", .rightFrame, "double_free")
        // Electric Fence keeps no red zone on a 13-byte block's last 3 bytes (it aligns to 4), and finds no leaks.
        peer("efence", "memory.heap-overflow-one", .missed, nil)
        peer("efence", "leaks.lost-list", .missed, nil)
        XCTAssertTrue(DetectConsole.render(m).contains("double_free (1)"))
        let back = try JSONDecoder.detect.decode(DetectMatrix.self, from: m.jsonData())
        XCTAssertEqual(back, m)
    }
}

extension JSONDecoder {
    /// The decoder of `DetectMatrix.jsonData()`.
    static var detect: JSONDecoder {
        let d = JSONDecoder()
        d.keyDecodingStrategy = .convertFromSnakeCase
        return d
    }
}
