import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Whether `LD_PRELOAD` can put the agent into a program at all.
///
/// `LD_PRELOAD` is read by the dynamic loader, which the kernel starts only
/// for an ELF executable that names one in a `PT_INTERP` program header. A
/// statically linked program (`-static`, `-static-pie`, Go with cgo off,
/// musl static builds, busybox) has none: it runs without the loader, the
/// agent and the malloc shim never load, and `faultline exec` would see
/// nothing but its exit status. For a `#!` script the program that runs is
/// its interpreter (`#!/usr/bin/env NAME`: NAME on `PATH`), so that is the
/// file looked at.
public enum PreloadReach {
    /// What the check found.
    public enum Verdict: Equatable, Sendable {
        /// The file that runs has an ELF interpreter: the preload loads.
        case reachable
        /// `path`, the file that runs (the program, or the interpreter of
        /// the script `script`), is an ELF executable without `PT_INTERP`.
        case staticallyLinked(path: String, script: String?)
        /// Not an ELF file this reader understands, an unreadable file, or
        /// a `#!` line it does not follow (`env -S …`); nothing is said.
        case unknown
    }

    /// Kernel limit on nested `#!` interpreters (`BINPRM_MAX_RECURSION`).
    static let maxScriptDepth = 4

    /// The verdict for `executable` (a path), with `searchPath` (a `PATH`
    /// value) to resolve `#!/usr/bin/env NAME`.
    public static func check(_ executable: String, searchPath: String?) -> Verdict {
        var path = executable
        var script: String?
        for _ in 0...maxScriptDepth {
            guard let head = readHead(path, count: 256) else { return .unknown }
            if head.starts(with: [0x7f, 0x45, 0x4c, 0x46]) {
                switch hasInterpreter(path) {
                case true?: return .reachable
                case false?: return .staticallyLinked(path: path, script: script)
                case nil: return .unknown
                }
            }
            guard head.starts(with: [0x23, 0x21]), let next = interpreter(ofScriptHead: head, searchPath: searchPath) else {
                return .unknown
            }
            script = script ?? path
            path = next
        }
        return .unknown
    }

    /// The one warning line for a program `check` found statically linked
    /// (nil for the other verdicts).
    public static func warning(_ verdict: Verdict) -> String? {
        guard case .staticallyLinked(let path, let script) = verdict else { return nil }
        let what = script.map { "the interpreter of \($0), \(path)," } ?? path
        return OneLine.escaped(
            "warning: \(what) is statically linked (no ELF interpreter), so LD_PRELOAD cannot load the agent or the malloc shim into it: "
                + "its crashes, exceptions, hangs, heap errors and leaks are not reported (unless it links the agent itself), "
                + "only its exit status is seen (and with --memory-limit the cgroup's OOM verdict); "
                + "link it dynamically, or link the agent into it (docs/agent.md)")
    }

    /// The interpreter a script's first line names, resolved; nil when the
    /// line is not one this follows.
    static func interpreter(ofScriptHead head: [UInt8], searchPath: String?) -> String? {
        let line = head.dropFirst(2).prefix { $0 != 0x0a }
        // The kernel splits the line once: the interpreter, then the rest
        // as one argument.
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        let parts = text.split(maxSplits: 1, whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let program = parts.first, program.hasPrefix("/") else { return nil }
        guard (program as NSString).lastPathComponent == "env" else { return program }
        // `#!/usr/bin/env NAME`: NAME on PATH runs the script; env's own
        // options (`-S`, `-i`) are not followed.
        guard parts.count == 2, !parts[1].hasPrefix("-"), !parts[1].contains(" "), !parts[1].contains("=") else { return nil }
        return try? ChildProcess.resolve(parts[1], path: searchPath)
    }

    /// Whether the ELF file at `path` has a `PT_INTERP` program header; nil
    /// when it cannot be read as ELF.
    static func hasInterpreter(_ path: String) -> Bool? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard let h = read(fd, at: 0, count: 64), h.count >= 52 else { return nil }
        let is64: Bool, little: Bool
        switch (h[4], h[5]) {
        case (1, 1): (is64, little) = (false, true)
        case (1, 2): (is64, little) = (false, false)
        case (2, 1): (is64, little) = (true, true)
        case (2, 2): (is64, little) = (true, false)
        default: return nil
        }
        func field(_ b: [UInt8], _ o: Int, _ n: Int) -> UInt64 {
            guard o + n <= b.count else { return 0 }
            var v: UInt64 = 0
            for i in 0..<n { v = v << 8 | UInt64(b[little ? o + n - 1 - i : o + i]) }
            return v
        }
        if is64 && h.count < 64 { return nil }
        let phoff = is64 ? field(h, 32, 8) : field(h, 28, 4)
        let phentsize = Int(field(h, is64 ? 54 : 42, 2)), phnum = Int(field(h, is64 ? 56 : 44, 2))
        // No program headers at all is not a program the kernel runs.
        guard phoff != 0, phnum > 0, phnum < 0xffff, phentsize >= (is64 ? 56 : 32),
              let table = read(fd, at: phoff, count: phnum * phentsize), table.count == phnum * phentsize
        else { return nil }
        return (0..<phnum).contains { field(table, $0 * phentsize, 4) == 3 /* PT_INTERP */ }
    }

    private static func readHead(_ path: String, count: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return read(fd, at: 0, count: count)
    }

    /// Up to `count` bytes at `offset` (fewer at the end of the file).
    private static func read(_ fd: Int32, at offset: UInt64, count: Int) -> [UInt8]? {
        guard count > 0, count <= 1 << 20, offset < UInt64(Int64.max) else { return nil }
        var buf = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = buf.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return nil }
            if n == 0 { break }
            done += n
        }
        return Array(buf[0..<done])
    }
}
