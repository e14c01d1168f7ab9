import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Removes the cgroups this process created when it ends early: at
/// `exit` (an `atexit` hook, which also covers an interrupt handler that
/// ends with `exit`, as `faultline run`'s does) and on SIGINT, SIGTERM and
/// SIGHUP when nobody else handles them (a handler that kills what is left
/// inside, removes the directories, and then dies by the same signal).
public final class CGroupCleanup: Sendable {
    /// The process-wide registry.
    public static let shared = CGroupCleanup()

    private let state = Mutex<(cgroups: [String: MemoryCGroup], hooksInstalled: Bool)>(([:], false))

    /// Seconds the exit and signal paths wait for killed processes to go.
    public static let exitTimeout: Double = 2

    /// Remembers `cgroup` until it is removed; installs the hooks the first time.
    func register(_ cgroup: MemoryCGroup) {
        let first = state.withLock { s -> Bool in
            s.cgroups[cgroup.path] = cgroup
            defer { s.hooksInstalled = true }
            return !s.hooksInstalled
        }
        if first { Self.installHooks() }
    }

    /// Forgets `cgroup` (it was removed).
    func unregister(_ cgroup: MemoryCGroup) {
        state.withLock { _ = $0.cgroups.removeValue(forKey: cgroup.path) }
    }

    /// The cgroups still registered.
    public var pending: [MemoryCGroup] { state.withLock { Array($0.cgroups.values) } }

    /// Kills what is inside each registered cgroup and removes it. Returns
    /// the errors of those that could not be removed.
    @discardableResult
    public func removeAll(timeout: Double = CGroupCleanup.exitTimeout) -> [CGroupError] {
        var errors: [CGroupError] = []
        for cgroup in pending {
            do { try cgroup.remove(timeout: timeout) } catch { errors.append(error) }
        }
        return errors
    }

    private static func installHooks() {
        atexit {
            for error in CGroupCleanup.shared.removeAll() { printError(error) }
        }
        SignalCleanup.install()
    }
}

/// The signal side of `CGroupCleanup`: a handler that only writes the
/// signal number into a pipe (all a handler may safely do), and a thread
/// that reads it, cleans up, restores the default action and re-raises.
enum SignalCleanup {
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Write end of the pipe; set once before any handler is installed.
    nonisolated(unsafe) static var pipeWrite: Int32 = -1

    static func install() {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        pipeWrite = fds[1]
        let readEnd = fds[0]
        var installed = false
        for sig in signals {
            var old = sigaction()
            sigaction(sig, nil, &old)
            // Someone else (the runner, `faultline exec`) handles or ignores it:
            // leave it alone; their handler's exit() still runs our atexit hook.
            guard old.__sigaction_handler.sa_handler == nil, old.sa_flags & SA_SIGINFO == 0 else { continue }
            var sa = sigaction()
            sa.__sigaction_handler.sa_handler = { sig in
                var byte = UInt8(truncatingIfNeeded: sig)
                _ = write(SignalCleanup.pipeWrite, &byte, 1)
            }
            sigemptyset(&sa.sa_mask)
            sa.sa_flags = SA_RESTART
            sigaction(sig, &sa, nil)
            installed = true
        }
        guard installed else { return }
        let thread = Thread {
            var byte: UInt8 = 0
            while read(readEnd, &byte, 1) < 0 && errno == EINTR {}
            let sig = Int32(byte)
            for error in CGroupCleanup.shared.removeAll() { printError(error) }
            signal(sig, SIG_DFL)
            kill(getpid(), sig)
        }
        thread.name = "faultline-cgroup-cleanup"
        thread.start()
    }
}

/// One line on stderr (no stdio: exit and signal paths use it).
func printError(_ error: CGroupError) {
    let text = "faultline: \(error)\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
}
