import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One long-lived `llvm-symbolizer` process that answers batch after batch.
///
/// Starting the tool costs little, but its first lookup in an image parses
/// that image's debug information (about 90 ms for Debian's libc with its
/// debug file); a process kept open answers later lookups in the same image
/// in about 0.1 ms, as AddressSanitizer's symbolizer does. The tool answers
/// one JSON line per input line and flushes each, so a batch of N queries is
/// done when N lines came back.
///
/// The process caches what it parsed by path, so a file that changed on
/// disk since the process first read it (a rebuilt binary) restarts the
/// process before the batch that names it. A batch that fails — the tool
/// exits, answers garbage, or takes longer than the timeout — kills the
/// process and returns nil; the next batch starts a new one.
final class SymbolizerSession: @unchecked Sendable {
    /// The tool's path.
    let tool: String
    /// The tool's arguments.
    let arguments: [String]
    /// Longest one batch may take, in seconds.
    let timeout: Double

    private var process: Process?
    private var input: Int32 = -1
    private var output: Int32 = -1
    /// Bytes read past the last complete line.
    private var pending: [UInt8] = []
    /// The identity each path had when this process first looked in it.
    private var seen: [String: FileIdentity] = [:]
    private let lock = NSLock()

    /// A session for `tool`; nothing runs until the first batch.
    init(tool: String, arguments: [String], timeout: Double = ToolLocator.defaultTimeout) {
        self.tool = tool
        self.arguments = arguments
        self.timeout = timeout
    }

    deinit { stop() }

    /// One output line per input line, in order; nil when the tool could not
    /// start or the batch failed. `identities` gives each file's identity now
    /// (a changed one restarts the process first).
    func ask(_ lines: [String], identities: [String: FileIdentity]) -> [String]? {
        lock.lock()
        defer { lock.unlock() }
        if identities.contains(where: { path, id in seen[path].map { $0 != id } ?? false }) { stop() }
        if process == nil, !start() { return nil }
        guard let answers = exchange(lines) else {
            stop()
            return nil
        }
        seen.merge(identities) { _, new in new }
        return answers
    }

    private func start() -> Bool {
        guard let (p, inPipe, outPipe) = ToolLocator.launch(tool, arguments) else { return false }
        // Our own copies of the pipe ends, so Foundation closing its handles
        // cannot pull the descriptors away mid-batch.
        input = dup(inPipe.fileHandleForWriting.fileDescriptor)
        output = dup(outPipe.fileHandleForReading.fileDescriptor)
        try? inPipe.fileHandleForWriting.close()
        try? outPipe.fileHandleForReading.close()
        guard input >= 0, output >= 0 else {
            process = p
            stop()
            return false
        }
        _ = fcntl(input, F_SETFD, FD_CLOEXEC)
        _ = fcntl(output, F_SETFD, FD_CLOEXEC)
        _ = fcntl(input, F_SETFL, fcntl(input, F_GETFL) | O_NONBLOCK)
        process = p
        pending = []
        seen = [:]
        return true
    }

    /// Ends the process: closing its input makes it exit; it is killed if
    /// it does not within a second.
    private func stop() {
        if input >= 0 { close(input); input = -1 }
        if output >= 0 { close(output); output = -1 }
        guard let p = process else { return }
        process = nil
        let deadline = Date().addingTimeInterval(1)
        while p.isRunning, Date() < deadline { usleep(1000) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
    }

    /// Writes the batch and reads as many lines back, both through one
    /// `poll` loop so neither pipe can fill and stall the other.
    private func exchange(_ lines: [String]) -> [String]? {
        var outgoing = Array((lines.joined(separator: "\n") + "\n").utf8)
        var written = 0
        var answers: [String] = []
        answers.reserveCapacity(lines.count)
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while answers.count < lines.count {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var fds = [pollfd(fd: output, events: Int16(POLLIN), revents: 0)]
            if written < outgoing.count { fds.append(pollfd(fd: input, events: Int16(POLLOUT), revents: 0)) }
            let n = poll(&fds, nfds_t(fds.count), Int32(min(left * 1000, 1000)) + 1)
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if fds.count > 1, fds[1].revents != 0 {
                let w = outgoing.withUnsafeBytes { write(input, $0.baseAddress! + written, $0.count - written) }
                if w > 0 {
                    written += w
                    if written == outgoing.count { outgoing = [] ; written = 0 }
                } else if w < 0, errno != EAGAIN, errno != EINTR {
                    return nil
                }
            }
            if fds[0].revents != 0 {
                let r = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress!, $0.count) }
                if r == 0 { return nil }
                if r < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    return nil
                }
                pending.append(contentsOf: buffer[0..<r])
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    answers.append(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
            }
        }
        // A line past the batch means the tool and we no longer agree on
        // which answer is whose.
        return pending.isEmpty ? answers : nil
    }
}

/// What a file on disk is now: a rebuilt file at the same path differs in
/// inode, size or modification time.
struct FileIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modifiedSeconds: Int
    var modifiedNanoseconds: Int

    /// The identity of the file at `path`, nil when it cannot be stat'ed.
    init?(path: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        modifiedSeconds = st.st_mtim.tv_sec
        modifiedNanoseconds = st.st_mtim.tv_nsec
    }
}
