import Foundation

/// Finds the perf map file of a report's process (`/tmp/perf-<pid>.map`)
/// and decides whether it can be that process's, since a file left by an
/// earlier process with the same pid (or written by a later one) would name
/// frames wrongly. A file is not the process's when:
///
/// - it was created after the report was written (its birth time is later
///   than the report's `time_unix_ns`): the runtime creates it when the
///   process starts, and the process was running when the report was made;
/// - it was last written before the earliest time the process could have
///   started, when the caller knows one (`faultline exec`: the run's start),
///   so it is a leftover;
/// - a process with the pid is running now that started after the report
///   was written (the pid was reused) and the file was last written after
///   that process started.
///
/// The file is read to at most `readLimit` bytes: of a bigger one the last
/// `readLimit` bytes, whose lines are the newest and override older ones.
public enum PerfMapFile {
    /// The most of a file that is read (64 MiB, about 800,000 of node's lines).
    public static let readLimit = 64 << 20

    /// Why a file was not used.
    public enum Rejection: Equatable, Sendable {
        /// Created after the report was written.
        case createdAfterReport
        /// Last written before the process could have started.
        case writtenBeforeProcessStart
        /// The pid belongs to a process started after the report, which
        /// wrote the file since.
        case pidReused
    }

    /// `/tmp/perf-<pid>.map` (perf's convention ignores TMPDIR).
    public static func path(pid: Int, directory: String = "/tmp") -> String {
        "\(directory)/perf-\(pid).map"
    }

    /// The rejection of a file with these times for a report written at
    /// `reportTime`, nil when the file may be the process's. `created` is
    /// nil when the file system does not keep birth times; `runningStart`
    /// is the start of the process that has the pid now, if any.
    public static func rejection(created: Date?, modified: Date, reportTime: Date,
                                 earliestProcessStart: Date?, runningStart: Date?) -> Rejection? {
        if let created, created > reportTime { return .createdAfterReport }
        if let earliestProcessStart, modified < earliestProcessStart { return .writtenBeforeProcessStart }
        // /proc gives a start to 10 ms and boot time to 1 s: a second's
        // margin before saying the running process is a later one.
        if let runningStart, runningStart > reportTime.addingTimeInterval(1), modified >= runningStart { return .pidReused }
        return nil
    }

    /// The map of `report`'s process, nil when there is no file, it cannot
    /// be read, or `rejection` says it is not the process's; parsed again
    /// only when `cache` does not hold it.
    static func load(for report: Report, directory: String = "/tmp", earliestProcessStart: Date? = nil,
                     cache: PerfMapCache = PerfMapCache()) -> PerfMap? {
        let path = path(pid: report.process.pid, directory: directory)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let modified = attributes[.modificationDate] as? Date
        else { return nil }
        let reportTime = Date(timeIntervalSince1970: Double(report.orderingTimeNs) / 1e9)
        let created = FileBirthTime.of(path)
        if rejection(created: created, modified: modified, reportTime: reportTime,
                     earliestProcessStart: earliestProcessStart,
                     runningStart: ProcessStartTime.of(pid: report.process.pid)) != nil { return nil }
        return cache.map(at: path) { readTail(path).map(PerfMap.init(bytes:)) }
    }

    /// The file's bytes, or its last `readLimit` bytes from the first whole
    /// line; nil for what is not a regular file (RegularFile: a FIFO there is
    /// not waited on).
    static func readTail(_ path: String, limit: Int = readLimit) -> [UInt8]? {
        guard let (data, skipped) = try? RegularFile.readTail(path, limit: limit) else { return nil }
        let bytes = [UInt8](data)
        guard skipped > 0 else { return bytes }
        // The first line is cut; it starts after the first newline.
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return [] }
        return Array(bytes[(newline + 1)...])
    }
}
