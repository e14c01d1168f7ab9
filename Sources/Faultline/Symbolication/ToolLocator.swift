import Foundation

/// Finds and runs the external tools Faultline uses off the fault path.
public enum ToolLocator {
    /// The path of `name`: next to `preferNextTo` on PATH if given and there,
    /// else the first on PATH; nil when absent.
    public static func find(_ name: String, preferNextTo sibling: String? = nil) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let dirs = path.split(separator: ":").map(String.init)
        let fm = FileManager.default
        if let sibling {
            for dir in dirs where fm.isExecutableFile(atPath: "\(dir)/\(sibling)") {
                let real = (try? fm.destinationOfSymbolicLink(atPath: "\(dir)/\(sibling)"))
                    .map { $0.hasPrefix("/") ? $0 : "\(dir)/\($0)" } ?? "\(dir)/\(sibling)"
                let candidate = ((real as NSString).deletingLastPathComponent as NSString).appendingPathComponent(name)
                if fm.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        for dir in dirs where fm.isExecutableFile(atPath: "\(dir)/\(name)") { return "\(dir)/\(name)" }
        return nil
    }

    /// Runs `tool` with `input` on stdin; returns stdout, nil if it could not
    /// start or failed.
    public static func run(_ tool: String, _ args: [String], input: String) -> String? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        let inPipe = Pipe(), outPipe = Pipe()
        p.standardInput = inPipe
        p.standardOutput = outPipe
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return nil }
        // Feed stdin from another thread so a large output cannot deadlock us.
        let data = Data(input.utf8)
        let writer = Thread {
            inPipe.fileHandleForWriting.write(data)
            try? inPipe.fileHandleForWriting.close()
        }
        writer.start()
        let out = outPipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { return nil }
        return String(decoding: out, as: UTF8.self)
    }
}
