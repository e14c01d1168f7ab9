import Foundation
import Synchronization

/// Rebuilds the C and C++ victims at bench time with extra flags, once per
/// victim, into a temporary folder: every C and C++ file of `Sources/VICTIM`
/// (any depth) and of `Sources/VictimSupport`, with the flags the package
/// gives victims (-O0 -g -fno-omit-frame-pointer) and `flags`. The build
/// folder's shared libraries are linked beside the result, since victims
/// dlopen their helpers next to /proc/self/exe.
/// Two uses: `-fsanitize=address` for ASan, and `-gdwarf-4` for valgrind
/// 3.19, which gives up on clang 21's DWARF 5 ("Possibly corrupted debuginfo file").
final class DetectVictimBuild: Sendable {
    let packageRoot: String
    let build: BuildDirectory
    let directory: String
    let flags: [String]
    private let built = Mutex<[String: Result<String, BenchError>]>([:])

    init(packageRoot: String, build: BuildDirectory, directory: String, flags: [String]) {
        self.packageRoot = packageRoot
        self.build = build
        self.directory = directory
        self.flags = flags
    }

    /// The victims rebuilt for AddressSanitizer and LeakSanitizer.
    static func asan(packageRoot: String, build: BuildDirectory, directory: String) -> DetectVictimBuild {
        DetectVictimBuild(packageRoot: packageRoot, build: build, directory: directory, flags: ["-fsanitize=address"])
    }

    /// The victims rebuilt with DWARF 4 debug information, for valgrind.
    static func dwarf4(packageRoot: String, build: BuildDirectory, directory: String) -> DetectVictimBuild {
        DetectVictimBuild(packageRoot: packageRoot, build: build, directory: directory, flags: ["-gdwarf-4"])
    }

    /// The rebuilt victim, or why it could not be built.
    func victim(_ name: String) -> Result<String, BenchError> {
        if let known = built.withLock({ $0[name] }) { return known }
        let result = compile(name)
        built.withLock { $0[name] = result }
        return result
    }

    private func sources(_ dir: String) -> [String] {
        let all = (FileManager.default.enumerator(atPath: dir)?.allObjects as? [String]) ?? []
        return all.filter { $0.hasSuffix(".c") || $0.hasSuffix(".cpp") }.sorted().map { "\(dir)/\($0)" }
    }

    private func compile(_ name: String) -> Result<String, BenchError> {
        let own = sources("\(packageRoot)/Sources/\(name)")
        guard !own.isEmpty else {
            return .failure(BenchError("no C or C++ sources in Sources/\(name) (a Swift victim cannot be rebuilt with clang)"))
        }
        guard let clang = BenchMachineTools.clang() else { return .failure(BenchError("clang not found")) }
        let support = "\(packageRoot)/Sources/VictimSupport"
        let files = own + sources(support)
        let cxx = files.contains { $0.hasSuffix(".cpp") }
        let out = "\(directory)/\(name)"
        var args = [clang, "-O0", "-g", "-fno-omit-frame-pointer", "-D_GNU_SOURCE", "-pthread", "-w"] + flags + [
                    "-I", "\(support)/include", "-I", "\(packageRoot)/Sources/\(name)"]
        for f in files { args += [f.hasSuffix(".cpp") ? "-xc++" : "-xc", f] }
        args += ["-xnone", "-o", out, "-ldl"] + (cxx ? ["-lstdc++", "-fsized-deallocation"] : [])
        let outcome = try? BenchProcess(arguments: args, timeLimit: 300).run()
        guard let outcome, outcome.succeeded else {
            return .failure(BenchError("clang \(flags.joined(separator: " ")) of Sources/\(name) failed: \(outcome?.failureDescription ?? "did not start")"))
        }
        let libs = ((try? FileManager.default.contentsOfDirectory(atPath: build.path)) ?? []).filter { $0.hasPrefix("lib") && $0.hasSuffix(".so") }
        for lib in libs { try? FileManager.default.createSymbolicLink(atPath: "\(directory)/\(lib)", withDestinationPath: "\(build.path)/\(lib)") }
        return .success(out)
    }
}
