import Foundation

/// Finding the peer tools and building the AddressSanitizer workload.
enum BenchMachineTools {
    /// `name` on PATH, or nil.
    static func onPath(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let p = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    /// The python3 interpreter itself: `sys.executable` of the python3 on
    /// PATH. A version manager's shim (pyenv's is a bash script) would
    /// otherwise be what valgrind runs — without following the exec into
    /// python — and its start-up would be charged to every setup.
    static func pythonInterpreter() -> String? {
        guard let onPath = onPath("python3") else { return nil }
        guard let o = try? BenchProcess(arguments: [onPath, "-c", "import sys; print(sys.executable)"], timeLimit: 30).run(), o.succeeded else {
            return onPath
        }
        let real = o.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return FileManager.default.isExecutableFile(atPath: real) ? real : onPath
    }

    /// The first existing file of `paths`, or nil.
    static func firstExisting(_ paths: [String]) -> String? {
        paths.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// clang from the Swift toolchain (it ships the ASan runtime), else PATH.
    static func clang() -> String? {
        firstExisting(["/opt/swift/usr/bin/clang"]) ?? onPath("clang")
    }

    /// Compiles the synthetic workload (every C file of bench-shim's source
    /// directory) with `-fsanitize=address` into `dir`; the path, or the
    /// reason it failed.
    static func buildASanWorkload(sourceDirectory: String, into dir: String) -> Result<String, BenchError> {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: sourceDirectory)) ?? []).filter { $0.hasSuffix(".c") }.sorted()
        guard !files.isEmpty else {
            return .failure(BenchError("\(sourceDirectory): no C files found; run from the package checkout to rebuild the workload with ASan"))
        }
        guard let clang = clang() else { return .failure(BenchError("clang not found (the Swift toolchain ships it at /opt/swift/usr/bin/clang)")) }
        let out = "\(dir)/bench-shim-asan"
        let args = [clang, "-O2", "-g", "-fsanitize=address", "-fno-omit-frame-pointer", "-D_GNU_SOURCE", "-pthread"]
            + files.map { "\(sourceDirectory)/\($0)" } + ["-o", out]
        guard let o = try? BenchProcess(arguments: args, timeLimit: 120).run(), o.succeeded else {
            return .failure(BenchError("compiling the workload with clang -fsanitize=address failed"))
        }
        return .success(out)
    }

    /// True when the shim at `path` has leak tracking: it reads the
    /// FAULTLINE_LEAK_* options. (The bare word "leaks" is no sign: the
    /// shared report code maps report kinds to detector names.)
    static func shimKnowsLeaks(_ path: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: path) else { return false }
        return data.range(of: Data("FAULTLINE_LEAK".utf8)) != nil
    }
}

/// A check of the build being measured.
public enum BenchBuildCheck {
    /// The preload libraries in `build` (and the describer the agent loads
    /// into C++ programs) that still load the Swift runtime (built with bare
    /// `swift build`, not `scripts/build`): each preloaded process would then
    /// pay about 2 ms and 4 MB more, charged to the detectors.
    public static func librariesLoadingSwiftRuntime(in build: BuildDirectory) -> [String] {
        [BuildDirectory.agentLibrary, BuildDirectory.mallocShimLibrary, BuildDirectory.agentCxxLibrary].compactMap { build.product($0) }.filter { lib in
            guard let o = try? BenchProcess(arguments: ["ldd", lib], timeLimit: 30).run(), o.succeeded else { return false }
            return o.stdout.contains("libswiftCore")
        }
    }
}
