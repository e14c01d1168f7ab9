import Foundation

/// Finds the package's build products (victims, the agent library, the
/// `faultline` executable) for the build these tests were compiled in.
///
/// SwiftPM puts the test bundle executable next to the other products of the
/// same build, whatever `--scratch-path` was, so the directory of
/// `/proc/self/exe` is searched first; then `.build*/debug` directories of
/// the package root (found from this file's path).
enum BuildProducts {
    /// The products directory, or nil when no build with victims exists.
    static let directory: String? = {
        let fm = FileManager.default
        var candidates: [String] = []
        if let exe = try? fm.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append((exe as NSString).deletingLastPathComponent)
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().path
        for name in ((try? fm.contentsOfDirectory(atPath: root)) ?? []).sorted() where name.hasPrefix(".build") {
            candidates.append("\(root)/\(name)/debug")
        }
        return candidates.first { fm.isExecutableFile(atPath: "\($0)/victim-c") }
    }()

    /// The path of product `name`; records an issue-worthy error when absent.
    static func path(_ name: String) throws -> String {
        guard let dir = directory else { throw Missing(name: name) }
        let p = "\(dir)/\(name)"
        guard FileManager.default.fileExists(atPath: p) else { throw Missing(name: name) }
        return p
    }

    /// A product the tests need was not built.
    struct Missing: Error, CustomStringConvertible {
        let name: String
        var description: String { "build product \(name) not found next to the test bundle; run `swift build --build-tests` first" }
    }
}
