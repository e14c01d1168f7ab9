import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Named checks for a scenario's `requires:` list. A requirement is `NAME`
/// or `NAME:ARGUMENT` (`program:gdb`); its check returns nil when met, else
/// the reason, which becomes the SKIP message.
public struct RequirementRegistry: Sendable {
    /// A check: nil when met, else why not (one line, what to do).
    public typealias Check = @Sendable (_ argument: String?) -> String?

    struct Entry: Sendable {
        var takesArgument: Bool
        var help: String
        var check: Check
    }

    private var entries: [String: Entry] = [:]

    /// An empty registry.
    public init() {}

    /// Adds (or replaces) a requirement. `help` is shown when a scenario
    /// names an unknown requirement.
    public mutating func register(_ name: String, takesArgument: Bool = false, help: String, check: @escaping Check) {
        entries[name] = Entry(takesArgument: takesArgument, help: help, check: check)
    }

    /// Requirement forms this registry knows, for messages.
    public var known: [String] {
        entries.keys.sorted().map { entries[$0]!.takesArgument ? "\($0):\(entries[$0]!.help)" : $0 }
    }

    /// nil when `text` names a known requirement, else the error message.
    public func validate(_ text: String) -> String? {
        let (name, argument) = Self.split(text)
        guard let entry = entries[name] else {
            return "unknown requirement '\(text)'; known: \(known.joined(separator: ", "))"
        }
        if entry.takesArgument && (argument ?? "").isEmpty {
            return "requirement '\(name)' needs an argument: \(name):\(entry.help)"
        }
        if !entry.takesArgument && argument != nil {
            return "requirement '\(name)' takes no argument; write just \(name)"
        }
        return nil
    }

    /// nil when `text` is met, else why not.
    public func check(_ text: String) -> String? {
        if let problem = validate(text) { return problem }
        let (name, argument) = Self.split(text)
        return entries[name]!.check(argument)
    }

    static func split(_ text: String) -> (String, String?) {
        guard let colon = text.firstIndex(of: ":") else { return (text, nil) }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// root, cgroup-memory, cgroup-v1-memory, python3, git, valgrind, program:NAME and library:NAME.
    public static let standard: RequirementRegistry = {
        var r = RequirementRegistry()
        r.register("root", help: "running as root") { _ in
            let uid = geteuid()
            return uid == 0 ? nil : "needs root (running as uid \(uid)); run faultline as root"
        }
        r.register("cgroup-memory", help: "a memory cgroup can be created") { _ in MemoryCgroupProbe.problem() }
        r.register("cgroup-v1-memory", help: "a cgroup v1 memory cgroup can be created (memory.oom_control)") { _ in
            MemoryCgroupProbe.problem(version1Only: true)
        }
        for tool in ["python3", "git", "valgrind"] {
            r.register(tool, help: "\(tool) runs") { _ in ProgramProbe.problem(tool, mustRun: true) }
        }
        r.register("program", takesArgument: true, help: "NAME") { name in ProgramProbe.problem(name ?? "", mustRun: false) }
        r.register("library", takesArgument: true, help: "NAME") { name in LibraryProbe.problem(name ?? "") }
        return r
    }()
}

/// Finds programs on PATH for `program:NAME` and the tool requirements.
enum ProgramProbe {
    /// The full path of `name` on PATH, nil when absent.
    static func find(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
            return "\(dir)/\(name)"
        }
        return nil
    }

    /// nil when `name` is on PATH (and, with `mustRun`, `name --version` succeeds).
    static func problem(_ name: String, mustRun: Bool) -> String? {
        guard let path = find(name) else { return "needs \(name), which is not on PATH; install it" }
        guard mustRun else { return nil }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = ["--version"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return "needs \(name); \(path) does not start (\(error.localizedDescription))" }
        p.waitUntilExit()
        return p.terminationStatus == 0 ? nil : "needs \(name); '\(path) --version' failed with status \(p.terminationStatus)"
    }
}

/// Checks whether a memory cgroup can be created here: cgroup v1's memory
/// hierarchy, or a cgroup v2 mount whose controllers include memory.
enum MemoryCgroupProbe {
    /// nil when a probe cgroup with a memory limit file could be created and
    /// removed; with `version1Only`, only cgroup v1's memory hierarchy counts.
    static func problem(version1Only: Bool = false) -> String? {
        var tried: [String] = []
        for (mount, limitFile) in candidates() where !version1Only || limitFile == "memory.limit_in_bytes" {
            let probe = "\(mount)/faultline-probe-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            if mkdir(probe, 0o755) != 0 {
                tried.append("\(mount): \(String(cString: strerror(errno)))")
                continue
            }
            let usable = FileManager.default.fileExists(atPath: "\(probe)/\(limitFile)")
            rmdir(probe)
            if usable { return nil }
            tried.append("\(mount): no \(limitFile) in a new cgroup")
        }
        if tried.isEmpty {
            return version1Only
                ? "needs a cgroup v1 memory hierarchy (memory.oom_control), but none is mounted (cgroup v2 has no switch for the OOM killer)"
                : "needs a memory cgroup, but no cgroup v1 memory or cgroup v2 mount with the memory controller was found"
        }
        return "needs a memory cgroup, but none can be created (\(tried.joined(separator: "; "))); run as root with cgroups mounted"
    }

    /// (mount point, limit file) for each cgroup mount that may hold memory cgroups.
    static func candidates() -> [(String, String)] {
        guard let text = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return [] }
        var out: [(String, String)] = []
        for line in text.split(separator: "\n") {
            // mountinfo: ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL…] - FSTYPE SOURCE SUPEROPTIONS
            let halves = line.components(separatedBy: " - ")
            guard halves.count == 2 else { continue }
            let left = halves[0].split(separator: " "), right = halves[1].split(separator: " ")
            guard left.count >= 5, right.count >= 3 else { continue }
            let mount = String(left[4])
            if right[0] == "cgroup", right[2].split(separator: ",").contains("memory") {
                out.append((mount, "memory.limit_in_bytes"))
            } else if right[0] == "cgroup2",
                      let controllers = try? String(contentsOfFile: "\(mount)/cgroup.controllers", encoding: .utf8),
                      controllers.split(whereSeparator: \.isWhitespace).contains("memory") {
                out.append((mount, "memory.max"))
            }
        }
        return out
    }
}
