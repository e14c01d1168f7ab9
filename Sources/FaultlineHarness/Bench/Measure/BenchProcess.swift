import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs one benchmark process and measures it from outside: wall time, the
/// CPU time (user + system) and peak RSS the kernel reports in wait4, and
/// its stdout. Stops it (its whole process group) at a time limit.
public struct BenchProcess: Sendable {
    /// How one run ended.
    public struct Outcome: Sendable {
        /// Wall seconds from spawn to reap.
        public var wallSeconds: Double
        /// User + system CPU seconds of the process and its reaped children.
        public var cpuSeconds: Double
        /// Peak resident set size in MB (ru_maxrss).
        public var maxRSSMB: Double
        /// Everything it printed on stdout.
        public var stdout: String
        /// The end of what it printed on stderr (at most 2 KB).
        public var stderrTail: String
        /// Exit status when it exited.
        public var exitStatus: Int32?
        /// The signal that ended it.
        public var signal: Int32?
        /// True when it was stopped at the time limit.
        public var timedOut: Bool

        /// Exited with status 0 within the limit.
        public var succeeded: Bool { !timedOut && exitStatus == 0 }

        /// One line saying how it ended when it did not succeed.
        public var failureDescription: String {
            if timedOut { return "stopped at the time limit after \(String(format: "%.0f", wallSeconds)) s" }
            if let s = signal { return "killed by signal \(s)" + lastStderrLine }
            return "exit status \(exitStatus ?? -1)" + lastStderrLine
        }

        /// The first stderr line that names an error, else the last line.
        /// valgrind's `==PID== ` prefix is dropped first, and the lines it
        /// leaves empty: its failures ended in a bare "==12046==", which
        /// named nothing.
        private var lastStderrLine: String {
            let lines = stderrTail.split(separator: "\n").map { line -> String in
                var text = Substring(line)
                if text.hasPrefix("=="), let end = text.dropFirst(2).range(of: "=="),
                   text[text.index(text.startIndex, offsetBy: 2)..<end.lowerBound].allSatisfy(\.isNumber) {
                    text = text[end.upperBound...]
                }
                return text.trimmingCharacters(in: .whitespaces)
            }.filter { !$0.isEmpty }
            let line = lines.first { $0.localizedCaseInsensitiveContains("error") } ?? lines.last ?? ""
            return line.isEmpty ? "" : ": " + String(line.prefix(160))
        }
    }

    /// argv (argv[0] is looked up on PATH when it has no slash).
    public var arguments: [String]
    /// Variables to set on top of the environment (LD_PRELOAD, FAULTLINE_*).
    public var environment: [String: String]
    /// Time limit in seconds.
    public var timeLimit: Double

    /// A process to run.
    public init(arguments: [String], environment: [String: String] = [:], timeLimit: Double = 120) {
        self.arguments = arguments
        self.environment = environment
        self.timeLimit = timeLimit
    }

    /// Runs it to the end or the time limit.
    public func run() throws -> Outcome {
        let dir = FileManager.default.temporaryDirectory.path
        let tag = "\(getpid())-\(UInt64.random(in: 0..<UInt64.max))"
        let outPath = "\(dir)/faultline-bench-\(tag).out", errPath = "\(dir)/faultline-bench-\(tag).err"
        defer { unlink(outPath); unlink(errPath) }

        // The parent's LD_PRELOAD and FAULTLINE_* never leak into a run: each
        // configuration says exactly what it injects.
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FAULTLINE_") && $0.key != "LD_PRELOAD" }
        env["SWIFT_BACKTRACE"] = "enable=no"
        for (k, v) in environment { env[k] = v }
        let envStrings = env.map { "\($0.key)=\($0.value)" }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // New files in the shared /tmp: a name planted there is never followed.
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
        // As the scenario runner does: no other descriptor of ours reaches the
        // measured program (an inherited write descriptor of a script another
        // thread is writing makes that script's exec fail with ETXTBSY).
        if let closefrom = SpawnExtensions.addClosefrom { _ = closefrom(&actions, 3) }
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK))
        posix_spawnattr_setpgroup(&attr, 0)
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attr, &emptyMask)

        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = envStrings.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        let rc = posix_spawnp(&pid, arguments[0], &actions, &attr, argv, envp)
        guard rc == 0 else { throw BenchError("cannot run \(arguments[0]): \(String(cString: strerror(rc)))") }

        var status: Int32 = 0
        var usage = rusage()
        var timedOut = false
        // Polling wait4: the CPU figures come from the kernel, so the 1 ms
        // granularity only touches the wall time.
        while true {
            let r = wait4(pid, &status, WNOHANG, &usage)
            if r == pid { break }
            if r < 0 && errno != EINTR { throw BenchError("wait4 failed for \(arguments[0]): \(String(cString: strerror(errno)))") }
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            if !timedOut && elapsed > timeLimit {
                kill(-pid, SIGKILL)
                timedOut = true
            }
            usleep(1000)
        }
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if timedOut { kill(-pid, SIGKILL) }  // helpers left in its group
        let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        let exited = (status & 0x7f) == 0
        return Outcome(
            wallSeconds: wall, cpuSeconds: cpu, maxRSSMB: Double(usage.ru_maxrss) / 1024.0, stdout: out,
            stderrTail: String(err.suffix(2048)), exitStatus: exited ? (status >> 8) & 0xff : nil,
            signal: exited ? nil : status & 0x7f, timedOut: timedOut)
    }
}
