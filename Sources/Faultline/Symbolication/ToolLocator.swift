import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Finds and runs the external tools Faultline uses off the fault path.
public enum ToolLocator {
    /// Longest a tool may run before it is killed, in seconds. A symbolizer
    /// stuck on a damaged file must not hang `faultline report show`.
    public static let defaultTimeout: Double = 120

    /// The path of `name`: next to `preferNextTo` on PATH if given and there,
    /// else the first on PATH; nil when absent.
    public static func find(_ name: String, preferNextTo sibling: String? = nil) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let dirs = path.split(separator: ":").map(String.init)
        let fm = FileManager.default
        if let sibling {
            for dir in dirs where fm.isExecutableFile(atPath: "\(dir)/\(sibling)") {
                // Follow the link (swift -> swift-frontend in some layouts, or
                // /usr/bin/swift -> /opt/swift/usr/bin/swift) to the toolchain.
                let real = URL(fileURLWithPath: "\(dir)/\(sibling)").resolvingSymlinksInPath().path
                for base in [real, "\(dir)/\(sibling)"] {
                    let candidate = ((base as NSString).deletingLastPathComponent as NSString).appendingPathComponent(name)
                    if fm.isExecutableFile(atPath: candidate) { return candidate }
                }
            }
        }
        for dir in dirs where fm.isExecutableFile(atPath: "\(dir)/\(name)") { return "\(dir)/\(name)" }
        return nil
    }

    /// Runs `tool` with `input` on stdin; returns stdout, nil if it could not
    /// start, failed, or ran longer than `timeout` seconds (then it is killed).
    public static func run(_ tool: String, _ args: [String], input: String, timeout: Double = defaultTimeout) -> String? {
        guard let (p, inPipe, outPipe) = launch(tool, args) else { return nil }
        let pid = p.processIdentifier
        // Feed stdin from another thread so a large output cannot deadlock us.
        let data = Data(input.utf8)
        let writer = Thread {
            try? inPipe.fileHandleForWriting.write(contentsOf: data)
            try? inPipe.fileHandleForWriting.close()
        }
        writer.start()
        let finished = LockedFlag()
        let watchdog = Thread {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if finished.isSet { return }
                Thread.sleep(forTimeInterval: 0.05)
            }
            if !finished.isSet { kill(pid, SIGKILL) }
        }
        watchdog.start()
        let out = outPipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        finished.set()
        guard p.terminationReason == .exit, p.terminationStatus == 0 else { return nil }
        return String(decoding: out, as: UTF8.self)
    }

    /// Starts `tool` with pipes on its stdin and stdout and stderr discarded;
    /// nil when it cannot start.
    static func launch(_ tool: String, _ args: [String]) -> (Process, input: Pipe, output: Pipe)? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        let inPipe = Pipe(), outPipe = Pipe()
        p.standardInput = inPipe
        p.standardOutput = outPipe
        p.standardError = FileHandle.nullDevice
        ignoreSIGPIPEOnce()
        do { try p.run() } catch { return nil }
        return (p, inPipe, outPipe)
    }

    /// Ignores SIGPIPE for the whole process (once): a tool that exits early
    /// closes its stdin, and writing to it must give EPIPE, not kill us.
    static func ignoreSIGPIPEOnce() { _ = ignoreSIGPIPE }

    private static let ignoreSIGPIPE: Void = { signal(SIGPIPE, SIG_IGN); return () }()
}

/// A lock-protected flag shared between a caller and a watchdog thread.
final class LockedFlag: @unchecked Sendable {
    private var value = false
    private let lock = NSLock()
    /// True once `set()` was called.
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    /// Sets the flag.
    func set() { lock.lock(); value = true; lock.unlock() }
}
