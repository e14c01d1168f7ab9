import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The report directory of one `faultline exec` run.
///
/// With an explicit directory, it is created if missing and used as is; the
/// run's reports are the `*.json` files that were not there before. Without
/// one, the run writes into a hidden temporary directory inside the parent
/// (`./faultline-reports`) which is renamed `<cmd>-<YYYYmmdd-HHMMSS>-<pid>`
/// (UTC start time, the command's pid) when the command ends. Either way a
/// directory this run created is removed again when no report was written,
/// unless processes that can still write into it are running
/// (`ReportDirectoryWriters`): then it is kept, and the hidden name becomes
/// a symbolic link to the final one, for the programs they start later.
public struct RunReportDirectory: Sendable {
    /// Default parent of per-run directories.
    public static let defaultParent = "faultline-reports"

    /// Where the agent writes while the command runs (absolute).
    public let path: String
    /// True when the directory was named by the user.
    public let explicit: Bool
    /// The directory to name to a person: the explicit one, or the parent
    /// the run directory goes into.
    public let location: String
    /// Directories this run created, innermost last, removed when empty.
    private let created: [String]
    /// Report files present before the run (explicit directories only).
    private let before: Set<String>
    /// The run's start time, for the final name.
    private let started: Date

    /// Why the directory cannot be used. One line naming it and the cause.
    public struct SetupError: Error, CustomStringConvertible, Sendable {
        /// What went wrong.
        public let message: String
        /// `message`, one line whatever the path holds.
        public var description: String { OneLine.escaped(message) }
    }

    /// Creates (and checks by writing a probe file) the directory for a run.
    public init(explicit dir: String?, parent: String = defaultParent) throws(SetupError) {
        started = Date()
        let fm = FileManager.default
        if let dir {
            let absolute = Self.absolute(dir)
            created = try Self.makeDirectories(absolute)
            explicit = true
            path = absolute
            location = absolute
            before = Set((try? fm.contentsOfDirectory(atPath: absolute)) ?? [])
        } else {
            let parentPath = Self.absolute(parent)
            var made = try Self.makeDirectories(parentPath)
            var template = Array("\(parentPath)/.exec-XXXXXX".utf8CString)
            guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
                let why = String(cString: strerror(errno))
                Self.removeEmpty(made)
                throw SetupError(message: "cannot create a report directory in \(parentPath): \(why); pass --report-dir DIR")
            }
            let temp = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            made.append(temp)
            created = made
            explicit = false
            path = temp
            location = parentPath
            before = []
        }
        do throws(SetupError) {
            try Self.probe(path)
        } catch {
            Self.removeEmpty(created)
            throw error
        }
    }

    /// The final directory when the command with `pid`, run as `command`,
    /// has ended: the temporary directory renamed (or the explicit one), or
    /// nil when the run wrote no report and the directory was removed.
    /// Also returns the paths of the run's report files. With
    /// `othersRunning` (processes the command started still carry the
    /// agent) the directory is kept even empty, and the temporary name is
    /// left as a symbolic link to the final one.
    public func finish(command: String, pid: Int32, othersRunning: Bool = false) -> (directory: String?, reports: [String]) {
        let fm = FileManager.default
        let names = ((try? fm.contentsOfDirectory(atPath: path)) ?? [])
            .filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") && !before.contains($0) }.sorted()
        if names.isEmpty && !othersRunning {
            Self.removeEmpty(created)
            let gone = !fm.fileExists(atPath: path)
            return (gone ? nil : path, [])
        }
        var final = path
        if !explicit {
            let parent = (path as NSString).deletingLastPathComponent
            let stamp = Self.stamp(started)
            let base = Self.safeName((command as NSString).lastPathComponent)
            var candidate = "\(parent)/\(base)-\(stamp)-\(pid)"
            var n = 2
            while fm.fileExists(atPath: candidate) { candidate = "\(parent)/\(base)-\(stamp)-\(pid)-\(n)"; n += 1 }
            // An agent that is already installed writes through a directory
            // fd, so its reports follow the rename. One installed later (a
            // program a straggler execs) opens FAULTLINE_REPORT_DIR by path
            // and would make the hidden directory again, where nobody looks:
            // the link sends it to the final one.
            if rename(path, candidate) == 0 {
                final = candidate
                if othersRunning && symlink((candidate as NSString).lastPathComponent, path) != 0 && rename(candidate, path) == 0 {
                    final = path
                }
            }
        }
        return (final, names.map { "\(final)/\($0)" })
    }

    /// `YYYYmmdd-HHMMSS` in UTC, like report file names.
    static func stamp(_ date: Date) -> String {
        var t = time_t(date.timeIntervalSince1970)
        var tm = tm()
        gmtime_r(&t, &tm)
        return String(format: "%04d%02d%02d-%02d%02d%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec)
    }

    /// A command name usable as a directory name component.
    static func safeName(_ name: String) -> String {
        let cleaned = String(name.map { $0.isLetter || $0.isNumber || "._+-".contains($0) ? $0 : "_" })
        return cleaned.isEmpty || cleaned.hasPrefix(".") ? "cmd" + cleaned : cleaned
    }

    static func absolute(_ path: String) -> String {
        let p = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return URL(fileURLWithPath: p).standardizedFileURL.path
    }

    /// `mkdir -p` with mode 0700; returns the directories it created.
    private static func makeDirectories(_ path: String) throws(SetupError) -> [String] {
        var made: [String] = []
        var current = ""
        for part in path.split(separator: "/") {
            current += "/" + part
            var st = stat()
            if stat(current, &st) == 0 {
                if (st.st_mode & S_IFMT) != S_IFDIR {
                    removeEmpty(made)
                    throw SetupError(message: "cannot create report directory \(path): \(current) is not a directory; pass another --report-dir")
                }
                continue
            }
            if mkdir(current, 0o700) != 0 && errno != EEXIST {
                let why = String(cString: strerror(errno))
                removeEmpty(made)
                throw SetupError(message: "cannot create report directory \(path): \(why); pass another --report-dir")
            }
            made.append(current)
        }
        return made
    }

    /// Creates and removes a file, which is what the agent will do (root
    /// passes permission checks that a real write can still fail, e.g. on a
    /// read-only file system).
    private static func probe(_ dir: String) throws(SetupError) {
        if let why = OutputLocation.probe(dir) {
            throw SetupError(message: "cannot write into report directory \(dir): \(why); pass another --report-dir")
        }
    }

    /// Removes the given directories, innermost first, while they are empty.
    private static func removeEmpty(_ dirs: [String]) {
        for d in dirs.reversed() where rmdir(d) != 0 { break }
    }
}
