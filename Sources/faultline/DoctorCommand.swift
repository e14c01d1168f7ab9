import ArgumentParser
import Faultline
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `faultline doctor`: what this machine offers the detectors — cgroup
/// versions and controllers, whether memory cgroups can be created here
/// (tried for real), libunwind, the symbolizer, signal stacks, ptrace,
/// the core pattern. Every line says ok, missing or unusable (and why).
struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Show what this machine supports: cgroups, unwinder, symbolizer, signal stacks.",
        discussion: "Every line ends in ok, missing or unusable with the reason. Creating a memory cgroup is tried for real (and the cgroup removed). --options prints every FAULTLINE_* variable instead.")

    @Flag(name: .customLong("options"), help: "Print every FAULTLINE_* variable: type, default, range, who reads it, what it does.")
    var listOptions = false

    func run() throws {
        if listOptions { return printOptions() }
        var sections: [(String, [CGroupDoctor.Line])] = []
        sections.append(("cgroups (memory limits, OOM kills)", CGroupDoctor.check()))
        sections.append(("agent", agentLines()))
        sections.append(("symbolication", symbolizerLines()))
        let width = sections.flatMap { $0.1 }.map(\.name.count).max() ?? 20
        for (title, lines) in sections {
            Console.out(title + "\n")
            for l in lines { Console.out("  " + l.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + l.verdict + "\n") }
        }
    }

    /// The options table, one variable a line, as `name  type  default  range  owner  doc`.
    private func printOptions() {
        let rows = AgentOption.all.map { o in
            [o.name, o.type, o.defaultValue.isEmpty ? "unset" : o.defaultValue, o.range ?? "", o.owner,
             o.doc + (o.isInternal ? " (set by Faultline)" : "") + (o.namesOutput ? " (ignored under secure execution)" : "")]
        }
        let header = ["variable", "type", "default", "range", "read by", "what it does"]
        let widths = (0..<5).map { c in ([header] + rows).map { $0[c].count }.max() ?? 0 }
        for r in [header] + rows {
            Console.out((0..<5).map { r[$0].padding(toLength: widths[$0] + 2, withPad: " ", startingAt: 0) }.joined() + r[5] + "\n")
        }
    }

    private func line(_ name: String, _ verdict: String) -> CGroupDoctor.Line { .init(name: name, verdict: verdict) }

    private func agentLines() -> [CGroupDoctor.Line] {
        var out: [CGroupDoctor.Line] = []
        let dir = AgentInjection.executableDirectory() ?? "."
        for lib in [AgentInjection.agentLibrary, AgentInjection.shimLibrary] {
            let path = dir + "/" + lib
            out.append(line(lib, FileManager.default.fileExists(atPath: path) ? "ok: \(path)" : "missing: not next to faultline in \(dir); build it"))
        }
        let shim = dir + "/" + AgentInjection.shimLibrary
        if let data = FileManager.default.contents(atPath: shim) {
            let exported = data.range(of: Data("faultline_shim_top_stacks\0".utf8)) != nil
            out.append(line("shim allocation stacks (breadcrumbs)", exported
                ? "ok: faultline_shim_top_stacks exported" : "missing: the shim does not export faultline_shim_top_stacks; breadcrumbs carry no stacks"))
        }
        if let h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL) {
            dlclose(h)
            out.append(line("libunwind (libunwind.so.8)", "ok: loads; DWARF unwinding"))
        } else {
            out.append(line("libunwind (libunwind.so.8)", "missing: \(String(cString: dlerror())); crash stacks fall back to frame pointers (apt-get install libunwind8)"))
        }
        let minimum = auxv(51)  // AT_MINSIGSTKSZ
        let agentStack = 256 << 10
        out.append(line("signal stack", minimum.map { agentStack >= Int($0) * 4
            ? "ok: the agent gives each thread \(agentStack >> 10) KiB; the kernel needs at least \($0) bytes"
            : "unusable: the kernel needs \($0) bytes per signal frame, close to the agent's \(agentStack >> 10) KiB" }
            ?? "ok: the agent gives each thread \(agentStack >> 10) KiB (kernel minimum unknown)"))
        var lim = rlimit()
        getrlimit(__rlimit_resource_t(8), &lim)  // RLIMIT_MEMLOCK (not imported)
        let locked = 4096 + 6 * (32 << 10)
        out.append(line("RLIMIT_MEMLOCK (breadcrumb pages)", lim.rlim_cur == UInt.max || lim.rlim_cur >= UInt(locked)
            ? "ok: \(lim.rlim_cur == UInt.max ? "unlimited" : ByteCount.describe(UInt64(lim.rlim_cur))); breadcrumbs lock \(locked >> 10) KiB"
            : "unusable: \(lim.rlim_cur) bytes; breadcrumb pages can be paged out (raise ulimit -l)"))
        let tracer = status("TracerPid") ?? "?"
        let scope = (try? String(contentsOfFile: "/proc/sys/kernel/yama/ptrace_scope", encoding: .utf8))?.trimmed
        out.append(line("ptrace", tracer == "0"
            ? "ok: not traced (TracerPid 0)\(scope.map { "; yama ptrace_scope \($0)" } ?? "")"
            : "unusable: traced by pid \(tracer); a debugger takes the signals the agent needs"))
        if let pattern = (try? String(contentsOfFile: "/proc/sys/kernel/core_pattern", encoding: .utf8))?.trimmed {
            out.append(line("core pattern", pattern.hasPrefix("|")
                ? "ok: piped to \(pattern.dropFirst().split(separator: " ").first ?? ""); crashes still end by their signal after the report"
                : "ok: \(pattern)"))
        } else {
            out.append(line("core pattern", "missing: /proc/sys/kernel/core_pattern unreadable"))
        }
        return out
    }

    private func symbolizerLines() -> [CGroupDoctor.Line] {
        let llvm = ToolLocator.find("llvm-symbolizer", preferNextTo: "swift") ?? ToolLocator.find("llvm-symbolizer")
        let a2l = ToolLocator.find("addr2line")
        let demangle = ToolLocator.find("swift-demangle", preferNextTo: "swift")
        return [
            line("llvm-symbolizer", llvm.map { "ok: \($0)" } ?? "missing: not on PATH or next to swift\(a2l == nil ? "; no symbolizer at all" : "; addr2line is used")"),
            line("addr2line", a2l.map { "ok: \($0)" } ?? "missing: not on PATH (binutils)"),
            line("swift-demangle", demangle.map { "ok: \($0)" } ?? "missing: Swift names stay mangled"),
        ]
    }

    /// A value from /proc/self/auxv (pairs of native words).
    private func auxv(_ type: UInt) -> UInt? {
        guard let data = FileManager.default.contents(atPath: "/proc/self/auxv") else { return nil }
        let words = data.withUnsafeBytes { Array($0.bindMemory(to: UInt.self)) }
        var i = 0
        while i + 1 < words.count {
            if words[i] == type { return words[i + 1] }
            if words[i] == 0 { break }
            i += 2
        }
        return nil
    }

    /// A field of /proc/self/status.
    private func status(_ key: String) -> String? {
        let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").first { $0.hasPrefix(key + ":") }.map { String($0.dropFirst(key.count + 1)).trimmed }
    }
}

private extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
