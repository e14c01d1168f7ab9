#if canImport(Glibc)
import Glibc
#endif

/// Reading and writing cgroup control files with plain system calls: each
/// write is one `write(2)` (the kernel parses one value per write), and
/// reads are small.
enum CGroupFiles {
    /// The whole file as text, nil when it cannot be read.
    static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { return nil }
        defer { close(fd) }
        var out = [UInt8]()
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buf.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return nil }
            if n == 0 { break }
            out.append(contentsOf: buf[0..<n])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The first line trimmed, nil when unreadable.
    static func readLine(_ path: String) -> String? {
        guard let text = read(path) else { return nil }
        return trim(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
    }

    /// The file as a decimal number ("max" reads as nil), nil when unreadable.
    static func readNumber(_ path: String) -> UInt64? {
        guard let line = readLine(path) else { return nil }
        return UInt64(line)
    }

    /// `key value` lines (memory.events, memory.oom_control, memory.stat).
    static func readKeyValues(_ path: String) -> [String: UInt64]? {
        guard let text = read(path) else { return nil }
        var out: [String: UInt64] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let v = UInt64(parts[1]) { out[String(parts[0])] = v }
        }
        return out
    }

    /// Writes `value` with one `write(2)`.
    static func write(_ path: String, _ value: String) throws(CGroupError) {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        if fd < 0 { throw CGroupError.system("open", path, errno: errno) }
        defer { close(fd) }
        let n = value.withCString { Glibc.write(fd, $0, strlen($0)) }
        if n < 0 { throw CGroupError.system("write '\(value)' to", path, errno: errno) }
    }

    /// `text` without leading and trailing blanks.
    static func trim(_ text: Substring) -> String {
        var s = text
        while let c = s.first, c == " " || c == "\t" || c == "\n" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\n" { s = s.dropLast() }
        return String(s)
    }

    /// The pids (or tids) listed one per line in `path`; nil when unreadable.
    static func readPids(_ path: String) -> [pid_t]? {
        guard let text = read(path) else { return nil }
        return text.split(separator: "\n").compactMap { pid_t($0) }
    }
}
