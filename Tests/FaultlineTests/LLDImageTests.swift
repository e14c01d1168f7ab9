import Faultline
import Foundation
import Testing

/// Executables linked with lld: a small one packs its R, R-X, relro and RW
/// segments into the file's first page, so /proc/self/maps shows each of
/// them at file offset 0. They are still one image, and its frames
/// symbolicate. The program is compiled here, with the toolchain's clang
/// and lld, and run under the real `faultline exec`.
@Suite struct LLDImageTests {
    static let clang = "/opt/swift/usr/bin/clang"

    /// Line numbers below are asserted: keep them in step with the source.
    static let source = """
        #include <stdlib.h>
        #include <string.h>

        __attribute__((noinline)) int lld_crash_here(int *p) {
            return *p + 1;
        }

        __attribute__((noinline)) void lld_free_twice(char *p) {
            free(p);
            free(p);
        }

        int main(int argc, char **argv) {
            if (argc > 1 && strcmp(argv[1], "double-free") == 0) {
                char *p = malloc(32);
                p[0] = 1;
                lld_free_twice(p);
                return 0;
            }
            return lld_crash_here((int *)(argc > 5 ? argv : 0));
        }

        """
    static let crashLine = 5

    /// Compiles `source` in `dir` with `-fuse-ld=LINKER`; returns the program.
    private func buildProgram(in dir: String, linker: String = "lld") throws -> String {
        let src = "\(dir)/lld_victim.c", exe = "\(dir)/victim-\(linker)"
        try Data(Self.source.utf8).write(to: URL(fileURLWithPath: src))
        let cc = try runProgram(Self.clang, ["-g", "-O0", "-fuse-ld=\(linker)", src, "-o", exe])
        guard cc.status == 0, !cc.signaled else {
            throw Victims.Unexpected(what: "clang -fuse-ld=\(linker) failed (\(cc.status)): \(cc.stderr)")
        }
        // The layout this suite is about: several PT_LOAD segments within the
        // file's first page (lld's default for a small program).
        let loads = try loadSegmentOffsets(exe)
        if linker == "lld" {
            #expect(loads.filter { $0 < 4096 }.count >= 2, "PT_LOAD file offsets \(loads): not the packed lld layout")
        }
        return exe
    }

    /// The file offsets of the PT_LOAD segments of a 64-bit little-endian ELF file.
    private func loadSegmentOffsets(_ path: String) throws -> [UInt64] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func int(_ at: Int, _ size: Int) -> UInt64 {
            (0..<size).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) }
        }
        guard bytes.count >= 64, bytes[0..<4] == [0x7f, 0x45, 0x4c, 0x46], bytes[4] == 2, bytes[5] == 1 else {
            throw Victims.Unexpected(what: "\(path) is not a 64-bit little-endian ELF file")
        }
        let phoff = Int(int(0x20, 8)), phentsize = Int(int(0x36, 2)), phnum = Int(int(0x38, 2))
        guard phoff + phnum * phentsize <= bytes.count else { throw Victims.Unexpected(what: "\(path): truncated") }
        return (0..<phnum).map { phoff + $0 * phentsize }.filter { int($0, 4) == 1 /* PT_LOAD */ }.map { int($0 + 8, 8) }
    }

    /// Runs `exe args` under `faultline exec`; returns the run and its one report.
    private func exec(_ exe: String, _ args: [String], reports: String) throws -> (run: Finished, report: Report) {
        let run = try runProgram(try BuildProducts.path("faultline"), ["exec", "--report-dir", reports, "--", exe] + args)
        return (run, try ReportStore.load(path: try Victims.onlyReport(in: reports)))
    }

    /// The executable is listed once, and its image covers every frame in it.
    private func checkImages(_ report: Report, exe: String, frames: [Report.Frame]) throws {
        let images = report.images ?? []
        let mine = images.indices.filter { images[$0].path == exe }
        #expect(mine.count == 1, "\(exe) listed \(mine.count) times: \(images.map(\.path))")
        let index = try #require(mine.first)
        // PIE, first PT_LOAD at address 0: the bias is the image's base.
        #expect(images[index].loadBias == images[index].base)
        let inExe = frames.filter { $0.image == index }
        #expect(inExe.count >= 2, "frames in \(exe): \(frames)")
        for frame in inExe {
            #expect(frame.offset?.value == frame.pc.value - images[index].base.value)
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: clang), "\(clang) is not installed: cannot link with lld"))
    func crashInAnLLDExecutableSymbolicates() throws {
        try checkCrash(linker: "lld")
    }

    /// gold maps its relro page from file offset 0 too (after the R-X one).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: clang) && ToolLocator.find("ld.gold") != nil,
                   "\(clang) or ld.gold is not installed"))
    func crashInAGoldExecutableSymbolicates() throws {
        try checkCrash(linker: "gold")
    }

    private func checkCrash(linker: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let exe = try buildProgram(in: dir, linker: linker)
        let (run, report) = try exec(exe, [], reports: "\(dir)/reports")
        #expect(run.status == 139, "\(run.stderr)")
        let frames = try #require(report.crashedThread?.frames)
        try checkImages(report, exe: exe, frames: frames)

        let result = Symbolicator().symbolicateWithWarnings(report)
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        let symbols = result.report.crashedThread?.frames.compactMap(\.symbol) ?? []
        let frame0 = try #require(symbols.first)
        #expect(frame0.function == "lld_crash_here")
        #expect(frame0.file?.hasSuffix("lld_victim.c") == true)
        #expect(frame0.line == Self.crashLine)
        #expect(symbols.contains { $0.function == "main" })
        #expect(!symbols.contains { $0.function == "__FRAME_END__" })
        // `faultline exec` printed it the same way.
        #expect(run.stderr.contains("lld_crash_here at "), "\(run.stderr)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: clang), "\(clang) is not installed: cannot link with lld"))
    func mallocShimReportInAnLLDExecutableSymbolicates() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let exe = try buildProgram(in: dir)
        let (run, report) = try exec(exe, ["double-free"], reports: "\(dir)/reports")
        #expect(report.kind == "double_free", "\(run.stderr)")
        let frames = try #require(report.crashedThread?.frames)
        try checkImages(report, exe: exe, frames: frames)

        let result = Symbolicator().symbolicateWithWarnings(report)
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        let names = result.report.crashedThread?.frames.compactMap { $0.symbol?.function } ?? []
        #expect(names.first == "lld_free_twice", "\(names)")
        #expect(names.contains("main"))
        #expect(!names.contains("__FRAME_END__"))
    }
}
