import Faultline
import Foundation
import Testing

/// Symbolication with the real tools against real victim reports.
@Suite struct SymbolicatorTests {
    /// A victim-c null-deref report, decoded.
    static func nullDerefReport(_ dir: String) throws -> Report {
        try ReportStore.load(path: try Victims.crashC("null-deref", in: dir).path)
    }

    private func checkNullDeref(_ report: Report, with s: Symbolicator) throws {
        let result = s.symbolicateWithWarnings(report)
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        let frame0 = try #require(result.report.crashedThread?.frames.first?.symbol)
        #expect(frame0.function == "victim_null_deref")
        #expect(frame0.file?.hasSuffix("main.c") == true)
        #expect((frame0.line ?? 0) > 0)
        // Frame 1 is a return address into main: looked up at pc-1, it is
        // the call's line in main, not the next statement's.
        let names = result.report.crashedThread?.frames.compactMap { $0.symbol?.function } ?? []
        #expect(names.contains("main"))
    }

    @Test func llvmSymbolizerResolvesTheCrashingFrame() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = Symbolicator()
        guard case .llvmSymbolizer? = s.tools.first else {
            Issue.record("no llvm-symbolizer found next to swift or on PATH")
            return
        }
        try checkNullDeref(try Self.nullDerefReport(dir), with: s)
    }

    @Test(.enabled(if: ToolLocator.find("addr2line") != nil, "addr2line (binutils) is not installed"))
    func addr2lineFallbackResolvesTheCrashingFrame() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = Symbolicator(tools: [.addr2line(ToolLocator.find("addr2line")!)])
        try checkNullDeref(try Self.nullDerefReport(dir), with: s)
    }

    @Test func aToolThatCannotRunFallsThroughToTheNext() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let real = try #require(Symbolicator().tools.first)
        let s = Symbolicator(tools: [.llvmSymbolizer("/nonexistent/llvm-symbolizer"), real])
        let result = s.symbolicateWithWarnings(try Self.nullDerefReport(dir))
        #expect(result.tool == real)
        #expect(result.report.crashedThread?.frames.first?.symbol?.function == "victim_null_deref")
        let none = Symbolicator(tools: [.llvmSymbolizer("/nonexistent/llvm-symbolizer")])
        let failed = none.symbolicateWithWarnings(result.report)
        #expect(failed.warnings.contains { $0.reason == .noSymbolizer })
    }

    @Test func buildIDMismatchIsDetectedAndFramesAreLeftAlone() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var report = try Self.nullDerefReport(dir)
        let index = try #require(report.crashedThread?.frames.first?.image)
        let original = report.images![index]
        let buildID = try #require(original.buildId)

        // A copy of the victim with one byte of its build-id note changed.
        let copy = "\(dir)/victim-c-rebuilt"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: original.path))
        let needle = Data(stride(from: 0, to: buildID.count, by: 2).map {
            UInt8(buildID[buildID.index(buildID.startIndex, offsetBy: $0)...].prefix(2), radix: 16)!
        })
        let at = try #require(bytes.range(of: needle))
        bytes[at.lowerBound] ^= 0xff
        try bytes.write(to: URL(fileURLWithPath: copy))
        #expect(ELFBuildID.read(path: copy) != buildID)
        report.images![index].path = copy

        let result = Symbolicator().symbolicateWithWarnings(report)
        let warning = try #require(result.warning(forImage: index))
        #expect(warning.reason == .buildIDMismatch(expected: buildID, found: ELFBuildID.read(path: copy)))
        #expect(warning.description.hasPrefix("build-id mismatch: \(copy) changed since the crash"))
        let frames = result.report.crashedThread?.frames ?? []
        #expect(frames.filter { $0.image == index }.allSatisfy { $0.symbol == nil })
        // Frames in other images (libc) are still resolved.
        #expect(frames.contains { $0.image != index && $0.symbol != nil })
        let text = ReportFormatter().format(result)
        #expect(text.contains("build-id mismatch: \(copy) changed since the crash"))
        #expect(text.contains("[build-id mismatch]"))
    }

    /// True when the installed libc has a separate debug file (libc6-dbg).
    static let libcDebugFileInstalled: Bool = {
        guard let id = ELFBuildID.read(path: "/usr/lib/x86_64-linux-gnu/libc.so.6") ?? ELFBuildID.read(path: "/lib64/libc.so.6")
        else { return false }
        return FileManager.default.fileExists(atPath: "/usr/lib/debug/.build-id/\(id.prefix(2))/\(id.dropFirst(2)).debug")
    }()

    @Test(.enabled(if: libcDebugFileInstalled, "libc has no debug file under /usr/lib/debug/.build-id (install libc6-dbg)"))
    func aChangedLibraryIsSymbolicatedFromItsDebugFile() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var report = try Self.nullDerefReport(dir)
        let libc = try #require(report.images?.firstIndex(where: { $0.path.hasSuffix("/libc.so.6") }))
        // The file at libc's path is now some other ELF file.
        let impostor = "\(dir)/libc.so.6"
        try FileManager.default.copyItem(atPath: try BuildProducts.path("victim-c"), toPath: impostor)
        report.images![libc].path = impostor
        let result = Symbolicator().symbolicateWithWarnings(report)
        #expect(result.warning(forImage: libc) == nil)
        let libcNames = (result.report.crashedThread?.frames ?? []).filter { $0.image == libc }.compactMap { $0.symbol?.function }
        #expect(libcNames.contains { $0.contains("libc_start") }, "\(libcNames)")
    }

    @Test func swiftFramesAreDemangled() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (path, run) = try Victims.crashSwift("force-unwrap-nil", in: dir)
        #expect(run.signaled)
        let report = try ReportStore.load(path: path)
        #expect(report.swiftFatalError?.contains("Unexpectedly found nil") == true)
        let result = Symbolicator().symbolicateWithWarnings(report)
        let names = (result.report.crashedThread?.frames ?? []).compactMap { $0.symbol?.function }
        #expect(names.contains { $0.contains("Account.ownerName") }, "\(names)")
        #expect(!names.contains { Symbolicator.isSwiftMangled($0) }, "\(names)")
    }

    /// `Report.Frame.isReturnAddress(at:)`: what a frame says, else its
    /// position (frame 0 the interrupted instruction, later frames return
    /// addresses — what every report meant before `return_address`).
    @Test func aFrameIsAReturnAddressWhenItSaysSoOrIsNotFrameZero() throws {
        func frame(_ json: String) throws -> Report.Frame {
            try JSONDecoderFactory.reports().decode(Report.Frame.self, from: Data(json.utf8))
        }
        let plain = try frame(#"{"pc": "0x1000"}"#)
        #expect(plain.returnAddress == nil)
        #expect(!plain.isReturnAddress(at: 0))
        #expect(plain.isReturnAddress(at: 1))
        let called = try frame(#"{"pc": "0x1000", "return_address": true}"#)
        #expect(called.isReturnAddress(at: 0))
        #expect(called.isReturnAddress(at: 3))
        let interrupted = try frame(#"{"pc": "0x1000", "return_address": false}"#)
        #expect(!interrupted.isReturnAddress(at: 0))
        #expect(!interrupted.isReturnAddress(at: 3))
        // Written back as it was read.
        let encoded = String(decoding: try JSONEncoderFactory.plain().encode(called), as: UTF8.self)
        #expect(encoded == #"{"pc":"0x1000","return_address":true}"#)
    }

    /// The address the symbolicator asks for, per frame, with a stand-in
    /// llvm-symbolizer that names each function after the address it was
    /// asked about: an interrupted instruction at its offset, a return
    /// address at offset - 1, in threads and in section stacks alike.
    @Test func returnAddressesAreLookedUpInsideTheCallAndInterruptedInstructionsAsIs() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let tool = "\(dir)/echo-symbolizer"
        try writeScript("""
            #!/bin/sh
            # Input: "FILE" 0xADDR per line; output: llvm-symbolizer's JSON, named after ADDR.
            while read -r file addr; do
              printf '{"Address":"%s","Symbol":[{"FunctionName":"at_%s","FileName":"/src/x.c","Line":1,"Column":1}]}\\n' "$addr" "$addr"
            done

            """, to: tool)
        func f(_ offset: String, _ extra: String = "") -> String {
            #"{"pc": "0x7f000000\#(offset.dropFirst(2))", "image": 0, "offset": "\#(offset)"\#(extra)}"#
        }
        let json = """
            {"schema": "faultline.report", "schema_version": 1, "id": "0123456789abcdef", "kind": "test",
             "time": "2026-11-22T00:00:00.000Z", "time_unix_ms": 0, "process": {"pid": 1},
             "crashed_thread": {"tid": 1, "frames": [\(f("0x1100")), \(f("0x1200"))]},
             "threads": [{"tid": 2, "frames": [\(f("0x2100", #", "return_address": true"#)), \(f("0x2200"))]}],
             "free_stack": [\(f("0x3100", #", "return_address": true"#)), \(f("0x3200"))],
             "deadlock": {"cycle": [{"tid": 3, "frames": [\(f("0x4100")), \(f("0x4200"))]}]},
             "call_tree": [\(f("0x5100", #", "return_address": true"#)), \(f("0x5200")), \(f("0x5300", #", "return_address": false"#))],
             "images": [{"path": "\(tool)", "base": "0x7f0000000000", "size": 65536, "load_bias": "0x7f0000000000"}]}
            """
        let report = try ReportStore.decode(Data(json.utf8), path: "synthetic.json")
        let result = Symbolicator(tools: [.llvmSymbolizer(tool)], demanglerPath: nil).symbolicateWithWarnings(report)
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        func names(_ frames: [Report.Frame]?) -> [String?] { (frames ?? []).map { $0.symbol?.function } }
        func names(_ stack: JSONValue?) throws -> [String?] {
            try (stack?.arrayValue ?? []).map { try $0.decode(Report.Frame.self).symbol?.function }
        }
        let out = result.report
        // A crash: frame 0 is the faulting instruction.
        #expect(names(out.crashedThread?.frames) == ["at_0x1100", "at_0x11ff"])
        // Frame 0 says it is a return address.
        #expect(names(out.threads?.first?.frames) == ["at_0x20ff", "at_0x21ff"])
        #expect(try names(out.sections["free_stack"]) == ["at_0x30ff", "at_0x31ff"])
        // A section stack that says nothing keeps the old rule.
        #expect(try names(out.sections["deadlock"]?["cycle"]?.arrayValue?.first?["frames"]) == ["at_0x4100", "at_0x41ff"])
        // Any frame may say, not only frame 0 (a call tree's leaves).
        #expect(try names(out.sections["call_tree"]) == ["at_0x50ff", "at_0x51ff", "at_0x5300"])
        // The raw values are left as they were.
        #expect(out.threads?.first?.frames.first?.offset?.value == 0x2100)
        #expect(out.threads?.first?.frames.first?.returnAddress == true)
    }

    @Test func everyOtherThreadIsSymbolicatedToo() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let report = try ReportStore.load(path: try Victims.crashC("crash-with-threads", in: dir).path)
        let result = Symbolicator().symbolicateWithWarnings(report)
        let idlers = (result.report.threads ?? []).filter { $0.name?.hasPrefix("idler-") == true }
        #expect(idlers.count == 3)
        for t in idlers {
            #expect(t.frames.contains { $0.symbol?.function == "idle_thread" }, "thread \(t.tid)")
        }
    }
}
