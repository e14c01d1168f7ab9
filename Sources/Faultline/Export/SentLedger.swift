import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Which reports of a folder have been accepted by which destination:
/// `<folder>/.faultline-sent`, one line `DESTINATION REPORT_ID` per report
/// a server answered with a 2xx, appended (and synced) only then. A report
/// not in it is sent again by the next upload, so nothing is lost when
/// the network or the server is down.
public struct SentLedger {
    /// The ledger's file name inside a report folder.
    public static let fileName = ".faultline-sent"

    /// The folder.
    public let directory: String
    private var sent: Set<String> = []

    /// The ledger of `directory` (empty when it has none).
    public init(directory: String) {
        self.directory = directory
        let path = (directory as NSString).appendingPathComponent(Self.fileName)
        if let text = try? String(contentsOfFile: path, encoding: .utf8) {
            sent = Set(text.split(separator: "\n").map(String.init))
        }
    }

    /// True when `destination` accepted report `id`.
    public func isSent(_ id: String, to destination: String) -> Bool {
        sent.contains("\(destination) \(id)")
    }

    /// Records that `destination` accepted `id`; returns why it could not
    /// be recorded (the report would then be sent again next time).
    public mutating func markSent(_ id: String, to destination: String) -> String? {
        let line = "\(destination) \(id)"
        let path = (directory as NSString).appendingPathComponent(Self.fileName)
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return "cannot record the upload in \(path): \(String(cString: strerror(errno)))" }
        defer { close(fd) }
        let bytes = Array((line + "\n").utf8)
        guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count, fsync(fd) == 0 else {
            return "cannot record the upload in \(path): \(String(cString: strerror(errno)))"
        }
        sent.insert(line)
        return nil
    }
}
