import Faultline
import Foundation
import Testing

/// The environment `faultline exec` gives a program, built against the real
/// libraries of this build.
@Suite struct AgentInjectionTests {
    private func injection(_ detectors: DetectorSelection?, shim: Bool = true) throws -> AgentInjection {
        let dir = try #require(BuildProducts.directory)
        return AgentInjection(libraryDirectory: dir, detectors: detectors, useShim: shim, captureStderr: true, reportDirectory: "/r")
    }

    @Test func agentFirstThenShimThenTheUsersPreloads() throws {
        let env = try injection(nil).environment(["LD_PRELOAD": "/opt/mine.so", "PATH": "/bin"])
        let preload = try #require(env["LD_PRELOAD"]).split(separator: ":").map(String.init)
        #expect(preload.count == 3)
        #expect(preload[0].hasSuffix("/libFaultlineAgentPreload.so"))
        #expect(preload[1].hasSuffix("/libFaultlineMallocShim.so"))
        #expect(preload[2] == "/opt/mine.so")
        #expect(env["FAULTLINE_REPORT_DIR"] == "/r")
        #expect(env["FAULTLINE_CAPTURE_STDERR"] == "1")
        #expect(env["FAULTLINE_DETECTORS"] == nil)
        #expect(env["SWIFT_BACKTRACE"] == "enable=no")
        #expect(env["PATH"] == "/bin")
    }

    @Test func shimOnlyForItsDetectors() throws {
        let crashOnly = try injection(DetectorSelection(parsing: "crash,hang")).environment([:])
        #expect(crashOnly["LD_PRELOAD"]?.contains("MallocShim") == false)
        #expect(crashOnly["FAULTLINE_DETECTORS"] == "crash,hang")
        let leaks = try injection(DetectorSelection(parsing: "crash,leaks")).environment([:])
        #expect(leaks["LD_PRELOAD"]?.contains("libFaultlineMallocShim.so") == true)
        let noShim = try injection(DetectorSelection(parsing: "leaks"), shim: false).environment([:])
        #expect(noShim["LD_PRELOAD"]?.contains("MallocShim") == false)
    }

    @Test func usersSwiftBacktraceSettingIsKept() throws {
        #expect(try injection(nil).environment(["SWIFT_BACKTRACE": "enable=yes"])["SWIFT_BACKTRACE"] == "enable=yes")
    }

    @Test func missingLibraryNamesTheProductToBuild() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let i = AgentInjection(libraryDirectory: dir, detectors: nil, useShim: true, captureStderr: false, reportDirectory: "/r")
        #expect(throws: AgentInjection.MissingLibrary.self) { try i.libraries() }
        do { _ = try i.libraries() } catch {
            #expect("\(error)" == "\(dir)/libFaultlineAgentPreload.so not found; build it with `swift build --product FaultlineAgentPreload`")
        }
    }
}
