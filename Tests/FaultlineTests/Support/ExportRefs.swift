import Foundation

/// The reference implementations the export tests check against (Relay's
/// normaliser, OTLP's messages), in the venv scripts/export-refs/setup
/// makes at .build/export-refs (scripts/test runs it).
enum ExportRefs {
    /// The package root.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// The scripts' folder.
    static let scripts = "\(root)/scripts/export-refs"

    /// The venv's python; throws with what to run when it is missing.
    static func python() throws -> String {
        let p = "\(root)/.build/export-refs/bin/python"
        guard FileManager.default.isExecutableFile(atPath: p) else { throw Missing() }
        return p
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String { "the export references are not installed; run scripts/export-refs/setup (scripts/test does)" }
    }

    /// Runs `script` (in scripts/export-refs) with `args`.
    static func run(_ script: String, _ args: [String]) throws -> Finished {
        try runProgram(try python(), ["\(scripts)/\(script)"] + args, directory: scripts)
    }
}

/// A real HTTP server on loopback (scripts/export-refs/upload_server.py)
/// that checks what it is sent against the references and logs each request.
final class UploadServer {
    let process: Process
    let port: Int
    let log: String
    private let input: Pipe

    init(key: String, failFirst: Int = 0, in dir: String) throws {
        log = "\(dir)/server-\(UUID().uuidString).log"
        process = Process()
        process.executableURL = URL(fileURLWithPath: try ExportRefs.python())
        process.arguments = ["\(ExportRefs.scripts)/upload_server.py", log, "--key", key, "--fail-first", String(failFirst), "--lifetime", "120"]
        process.currentDirectoryURL = URL(fileURLWithPath: ExportRefs.scripts)
        let out = Pipe()
        input = Pipe()
        process.standardOutput = out
        process.standardInput = input
        try process.run()
        var line = Data()
        while let byte = try out.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line += byte }
        guard let p = Int(String(decoding: line, as: UTF8.self)) else { throw CocoaError(.fileReadCorruptFile) }
        port = p
    }

    /// The requests it answered, oldest first.
    func requests() -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
