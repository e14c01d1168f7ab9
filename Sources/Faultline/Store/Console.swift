import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The CLI's stdout and stderr. A reader that went away (`faultline exec
/// -- prog 2>&1 | head -3`) ends that stream's output for good and nothing
/// else: the command goes on and exits with the status it would have had.
/// (FileHandle.write trapped on EPIPE, SIGILL, and print() buffered output
/// for a pipe that was gone.)
public enum Console {
    /// Streams whose reader is gone (bit 1: stdout, bit 2: stderr).
    private static let closed = Atomic<Int>(0)

    /// Ignores SIGPIPE, so that a closed reader is an EPIPE error on the
    /// write rather than the end of the process. Children get the default
    /// back (both ChildProcess spawns reset it).
    public static func ignoreBrokenPipes() { signal(SIGPIPE, SIG_IGN) }

    /// Writes `text` to stdout, unless its reader has gone.
    public static func out(_ text: String) { write(Data(text.utf8), to: 1) }

    /// Writes `text` to stderr, unless its reader has gone.
    public static func err(_ text: String) { write(Data(text.utf8), to: 2) }

    /// Writes all of `data` to fd 1 or 2; on an error (EPIPE, EIO, ENOSPC)
    /// the rest and everything later to that stream is dropped.
    public static func write(_ data: Data, to fd: Int32) {
        let bit = fd == 1 ? 1 : 2
        guard closed.load(ordering: .relaxed) & bit == 0, !data.isEmpty else { return }
        let failed = data.withUnsafeBytes { raw -> Bool in
            guard let base = raw.baseAddress else { return false }
            var done = 0
            while done < raw.count {
                let n = Glibc.write(fd, base + done, raw.count - done)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return true }
                done += n
            }
            return false
        }
        if failed { closed.bitwiseOr(bit, ordering: .relaxed) }
    }

    /// True once stdout's reader has gone.
    public static var stdoutClosed: Bool { closed.load(ordering: .relaxed) & 1 != 0 }
}
