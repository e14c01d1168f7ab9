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
