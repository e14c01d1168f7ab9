import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes a `Report` into a report directory the way the agent does: a
/// hidden temporary file (mode 0600) renamed to
/// `<kind>-<YYYYMMDDTHHMMSS>-<pid>-<id>.json`, so a reader never sees half
/// a report.
public enum ReportFileWriter {
    /// A new random report id (16 hex digits).
    public static func newID() -> String {
        String(format: "%016llx", UInt64.random(in: 0...UInt64.max))
    }

    /// ISO-8601 UTC with milliseconds, as the agent writes it.
    public static func isoTime(unixMs: UInt64) -> String {
        var t = time_t(unixMs / 1000)
        var tm = tm()
        gmtime_r(&t, &tm)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                      tm.tm_hour, tm.tm_min, tm.tm_sec, Int32(unixMs % 1000))
    }

    /// Writes `report`; returns the path. Throws a one-line error naming the file.
    @discardableResult
    public static func write(_ report: Report, into directory: String) throws -> String {
        let data = try JSONEncoderFactory.plain().encode(report) + Data("\n".utf8)
        let stamp = isoTime(unixMs: report.timeUnixMs).filter { $0.isNumber || $0 == "T" }.prefix(15)
        let name = "\(report.kind)-\(stamp)-\(report.process.pid)-\(report.id).json"
        let final = directory + "/" + name, temp = directory + "/." + name + ".tmp"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ReportWriteError(path: temp, errno: errno) }
        let ok = data.withUnsafeBytes { raw -> Bool in
            var done = 0
            while done < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + done, raw.count - done)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                done += n
            }
            return true
        }
        let e = errno
        close(fd)
        guard ok, rename(temp, final) == 0 else {
            let err = ReportWriteError(path: ok ? final : temp, errno: ok ? errno : e)
            unlink(temp)
            throw err
        }
        return final
    }
}

/// A report file that could not be written.
public struct ReportWriteError: Error, CustomStringConvertible {
    /// The file.
    public var path: String
    /// errno of the failed call.
    public var errno: Int32

    public var description: String {
        "cannot write report \(path): \(String(cString: strerror(errno))); check that the report directory exists and is writable"
    }
}
