import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where the agent's and the malloc shim's `faultline: …` lines go under
/// `faultline exec`, so that the program's stdout and stderr carry only its
/// own bytes (valgrind's `--log-file` / `--log-fd`). The agent reads the
/// choice from `FAULTLINE_LOG` (docs/reports.md, "Where output goes").
public final class ToolLogChannel: @unchecked Sendable {
    /// What the user chose.
    public enum Destination: Sendable, Equatable {
        /// The default: a FIFO that this process reads and copies to its own
        /// stderr as lines arrive.
        case relay
        /// `--log-file FILE`: appended to by every process (truncated first).
        case file(String)
        /// `--log-fd N`: a descriptor this process inherited.
        case fd(Int32)
    }

    /// A destination that cannot be used. The description is one line.
    public struct SetupError: Error, CustomStringConvertible, Sendable {
        /// What went wrong and what to do.
        public let description: String
    }

    /// The value of `FAULTLINE_LOG` for the program.
    public let environmentValue: String
    /// The descriptor `faultline exec`'s own lines go to (2 for the relay).
    public let ownOutput: Int32
    private let fifoDirectory: String?
    private let fifoFD: Int32
    private let stopPipe: [Int32]
    private let done = DispatchSemaphore(value: 0)

    /// Prepares `destination`: makes the FIFO and starts copying it, opens
    /// (and truncates) the file, or checks the descriptor.
    public init(_ destination: Destination, currentDirectory: String) throws(SetupError) {
        switch destination {
        case .file(let path):
            let absolute = path.hasPrefix("/") ? path : currentDirectory + "/" + path
            let fd = open(absolute, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw SetupError(description: "--log-file \(OneLine.escaped(path)): cannot open it for writing: \(String(cString: strerror(errno))); give a writable path")
            }
            environmentValue = absolute
            ownOutput = fd
            fifoDirectory = nil
            fifoFD = -1
            stopPipe = []
        case .fd(let n):
            guard n >= 0, fcntl(n, F_GETFD) >= 0 else {
                throw SetupError(description: "--log-fd \(n): no such open descriptor; open it in the shell first (e.g. 3>log.txt)")
            }
            environmentValue = "fd:\(n)"
            ownOutput = n
            fifoDirectory = nil
            fifoFD = -1
            stopPipe = []
        case .relay:
            var template = Array((NSTemporaryDirectory() + "/faultline-log-XXXXXX").utf8CString)
            guard let made = mkdtemp(&template) else {
                throw SetupError(description: "cannot make a directory for the agent's log channel in \(NSTemporaryDirectory()): \(String(cString: strerror(errno))); set TMPDIR to a writable directory")
            }
            let dir = String(cString: made)
            let fifo = dir + "/channel"
            guard mkfifo(fifo, 0o600) == 0 else {
                let why = String(cString: strerror(errno))
                rmdir(dir)
                throw SetupError(description: "cannot make the agent's log channel \(fifo): \(why); set TMPDIR to a directory that allows FIFOs")
            }
            // Read and write: the FIFO never reads end-of-file between
            // writers, and the open does not wait for one.
            let fd = open(fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC)
            var pipeFDs: [Int32] = [-1, -1]
            guard fd >= 0, pipe(&pipeFDs) == 0 else {
                let why = String(cString: strerror(errno))
                if fd >= 0 { close(fd) }
                unlink(fifo)
                rmdir(dir)
                throw SetupError(description: "cannot open the agent's log channel \(fifo): \(why)")
            }
            for p in pipeFDs { _ = fcntl(p, F_SETFD, FD_CLOEXEC) }
            environmentValue = fifo
            ownOutput = 2
            fifoDirectory = dir
            fifoFD = fd
            stopPipe = pipeFDs
            let thread = Thread { [fifoFD = fd, stop = pipeFDs[0], done] in
                Self.relay(fifoFD, stop: stop)
                done.signal()
            }
            thread.name = "faultline-log"
            thread.start()
        }
    }

    /// Copies what arrives on `fd` to stderr until `stop` is readable, then
    /// what is left.
    private static func relay(_ fd: Int32, stop: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: stop, events: Int16(POLLIN), revents: 0)]
        while true {
            let r = poll(&fds, 2, -1)
            if r < 0 { if errno == EINTR { continue }; break }
            if fds[0].revents != 0 { copyAvailable(fd, &buffer) }
            if fds[1].revents != 0 { break }
        }
        copyAvailable(fd, &buffer)
    }

    private static func copyAvailable(_ fd: Int32, _ buffer: inout [UInt8]) {
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            var off = 0
            while off < n {
                let w = buffer.withUnsafeBytes { write(2, $0.baseAddress! + off, n - off) }
                if w < 0 { if errno == EINTR { continue }; return }
                off += w
            }
        }
    }

    /// After the program ended: copies what is still queued, stops the
    /// relay and removes the FIFO. Processes left running then write their
    /// lines to their own stderr (the FIFO is gone), as before.
    public func finish() {
        guard let fifoDirectory else { return }
        var one: UInt8 = 1
        _ = write(stopPipe[1], &one, 1)
        done.wait()
        close(fifoFD)
        close(stopPipe[0])
        close(stopPipe[1])
        unlink(fifoDirectory + "/channel")
        rmdir(fifoDirectory)
    }
}
