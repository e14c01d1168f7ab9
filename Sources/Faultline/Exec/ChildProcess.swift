import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The child the signal forwarder sends to (0: none). A global because a
/// signal handler can capture nothing.
private let forwardTarget = Atomic<Int32>(0)
/// A forwarded signal that arrived after the handlers were armed but before
/// the child existed (0: none); it is sent as soon as the child has a pid.
private let pendingSignal = Atomic<Int32>(0)

/// Runs one program the way a shell would (`posix_spawn`, stdin, stdout and
/// stderr inherited), forwards termination signals to it, and waits for it.
public enum ChildProcess {
    /// Signals passed on to the child while it runs.
    public static let forwardedSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    /// How a child ended.
    public enum Termination: Sendable, Equatable {
        /// `exit(code)`.
        case exited(Int32)
        /// Killed by a signal.
        case signaled(Int32)

        /// The status a shell reports: the code, or 128 + the signal.
        public var shellStatus: Int32 {
            switch self {
            case .exited(let c): return c
            case .signaled(let s): return 128 + s
            }
        }
    }

    /// Why a program could not be started. The description is one line.
    public struct LaunchError: Error, CustomStringConvertible, Sendable {
        /// The shell's status for this failure: 127 not found, 126 not runnable.
        public let status: Int32
        /// What went wrong.
        public let message: String
        /// `message`, one line whatever the program's path holds.
        public var description: String { OneLine.escaped(message) }
    }

    /// The path `command` runs: itself when it holds a `/`, else the first
    /// executable file of that name on `path` (a PATH value).
    public static func resolve(_ command: String, path: String?) throws(LaunchError) -> String {
        let fm = FileManager.default
        if command.contains("/") {
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: command, isDirectory: &isDir) else {
                throw LaunchError(status: 127, message: "\(command): no such file; check the path")
            }
            guard !isDir.boolValue, fm.isExecutableFile(atPath: command) else {
                throw LaunchError(status: 126, message: "\(command): not an executable file; check its permissions")
            }
            return command
        }
        for dir in (path ?? "/usr/bin:/bin").split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (dir.isEmpty ? "." : String(dir)) + "/" + command
            var isDir: ObjCBool = false
            if fm.fileExists(atPath: candidate, isDirectory: &isDir), !isDir.boolValue, fm.isExecutableFile(atPath: candidate) {
                return candidate
            }
        }
        throw LaunchError(status: 127, message: "\(command): command not found on PATH")
    }

    /// Starts `executable` with `arguments` (argv[0] first) and
    /// `environment`, with default dispositions for the forwarded signals
    /// and SIGPIPE and an empty signal mask whatever this process uses (a
    /// child of a thread that blocks signals — Foundation's `Process` spawns
    /// from one — would otherwise inherit them blocked, and the agent's
    /// thread sampling signal with them). `stdin`, `stdout`, `stderr`, when
    /// given, are file descriptors the child gets as 0, 1 and 2; otherwise
    /// it inherits ours. `directory` is the child's working directory
    /// (default: ours). Returns the child's pid.
    public static func spawn(_ executable: String, arguments: [String], environment: [String: String],
                             stdin: Int32? = nil, stdout: Int32? = nil, stderr: Int32? = nil,
                             directory: String? = nil) throws(LaunchError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let directory {
            guard let addchdir = addChdirAction else {
                throw LaunchError(status: 126, message: "\(executable): this C library cannot start a program in another directory (\(directory))")
            }
            _ = addchdir(&actions, directory)
        }
        for (fd, target) in [(stdin, Int32(0)), (stdout, Int32(1)), (stderr, Int32(2))] {
            if let fd { posix_spawn_file_actions_adddup2(&actions, fd, target) }
        }
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in forwardedSignals + [SIGPIPE] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attr, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attr, &mask)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, &attr, argv, envp)
        guard rc == 0 else {
            let why = String(cString: strerror(rc))
            let status: Int32 = rc == ENOENT ? 127 : 126
            throw LaunchError(status: status, message: "\(executable): cannot run it: \(why)")
        }
        return pid
    }

    /// glibc's `posix_spawn_file_actions_addchdir_np` (2.29+), which Swift
    /// does not import (it is a GNU extension).
    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private static let addChdirAction: AddChdir? = {
        guard let sym = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np") else { return nil }
        return unsafeBitCast(sym, to: AddChdir.self)
    }()

    /// Takes over SIGINT, SIGTERM, SIGHUP and SIGQUIT before the child is
    /// spawned: one that arrives before `forwardSignals(to:)` names the child
    /// is held and then sent to it, instead of killing us and orphaning it.
    /// Call it from the thread that then calls `wait`.
    public static func armSignalForwarding() {
        for s in forwardedSignals {
            var sa = sigaction()
            sa.__sigaction_handler.sa_sigaction = { sig, info, _ in
                let target = forwardTarget.load(ordering: .sequentiallyConsistent)
                // SI_KERNEL (0x80): from the tty driver or the kernel itself,
                // which reaches a running child through its process group.
                if target > 0 { if info?.pointee.si_code != 0x80 { kill(target, sig) } }
                else { _ = pendingSignal.compareExchange(expected: 0, desired: sig, ordering: .sequentiallyConsistent) }
            }
            sa.sa_flags = SA_SIGINFO | SA_RESTART
            sigemptyset(&sa.sa_mask)
            sigaction(s, &sa, nil)
        }
        // A parent may have started us with these blocked (Foundation's
        // Process does); this thread, which goes on to wait, takes them.
        var set = sigset_t()
        sigemptyset(&set)
        for s in forwardedSignals { sigaddset(&set, s) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Forwards SIGINT, SIGTERM, SIGHUP and SIGQUIT to `pid` until `wait`
    /// returns (`wait` restores the default actions), first sending one that
    /// arrived since `armSignalForwarding` (which this arms if nobody did).
    /// A signal the kernel sent to the running child's process group (a
    /// terminal key) is not sent twice.
    public static func forwardSignals(to pid: pid_t) {
        var current = sigaction()
        sigaction(forwardedSignals[0], nil, &current)
        if current.sa_flags & SA_SIGINFO == 0 { armSignalForwarding() }
        forwardTarget.store(pid, ordering: .sequentiallyConsistent)
        let held = pendingSignal.exchange(0, ordering: .sequentiallyConsistent)
        if held != 0 { kill(pid, held) }
    }

    /// Puts the forwarded signals back to their default action, so this
    /// process can be interrupted again once the child is gone.
    private static func stopForwarding() {
        // Only when forwarding was on: a host's own handlers stay alone.
        guard forwardTarget.exchange(0, ordering: .sequentiallyConsistent) != 0 else { return }
        for s in forwardedSignals { signal(s, SIG_DFL) }
    }

    /// Waits for `pid` to end. If `forwardSignals` was on, it stops and
    /// the forwarded signals get their default actions back.
    public static func wait(_ pid: pid_t) -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR {
                stopForwarding()
                return .exited(127)
            }
        }
        stopForwarding()
        // WIFEXITED / WTERMSIG are macros Swift does not import.
        let signal = status & 0x7f
        if signal == 0 { return .exited((status >> 8) & 0xff) }
        return .signaled(signal)
    }
}
