import Foundation

/// The leak summary `faultline exec --leaks` prints after the program exits:
/// per `leak` report one line of totals and its largest groups, each named by
/// the first frame of its allocation stack that is not an allocator; per
/// `leak_growth` report the growing stack.
public struct LeakSummary: Sendable {
    /// Groups listed per report (the report itself may list more).
    public var maxGroups: Int

    /// Functions that only pass an allocation on; a group is named after the
    /// first frame that is none of these.
    public static let allocatorFunctions: Set<String> = [
        "malloc", "calloc", "realloc", "reallocarray", "posix_memalign", "aligned_alloc", "memalign", "valloc",
        "strdup", "strndup", "swift_slowAlloc", "swift_allocObject", "operator new(unsigned long)",
        "operator new[](unsigned long)", "xmalloc", "xcalloc", "xrealloc", "xstrdup",
        "Perl_safesysmalloc", "Perl_safesyscalloc", "Perl_safesysrealloc",
    ]

    /// A summary listing at most `maxGroups` groups per report.
    public init(maxGroups: Int = 5) { self.maxGroups = maxGroups }

    /// The summary of the `leak` and `leak_growth` reports among `reports`
    /// (symbolicated ones give names; others give image+offset).
    public func render(_ reports: [Report]) -> String {
        let leaks = reports.filter { $0.kind == "leak" }
        let growth = reports.filter { $0.kind == "leak_growth" }
        var out = "leak summary:\n"
        if leaks.isEmpty && growth.isEmpty {
            out += "  no leak reports: nothing lost at exit (or the leak check was off: FAULTLINE_LEAK_CHECK_AT_EXIT)\n"
            return out
        }
        for r in leaks { out += renderLeak(r) }
        for r in growth { out += renderGrowth(r) }
        return out
    }

    /// The totals of a `leak` report in one phrase: `1 block(s) definitely
    /// lost (48 bytes), 9 indirectly (432 bytes), 0 suppressed, 33 still
    /// reachable (85099 bytes)`.
    public static func totals(of r: Report) -> String {
        let totals = r.sections["leak"]?["totals"]
        func pair(_ key: String) -> (Int, Int) {
            (totals?[key]?["blocks"]?.intValue ?? 0, totals?[key]?["bytes"]?.intValue ?? 0)
        }
        let (db, dB) = pair("definitely_lost"), (ib, iB) = pair("indirectly_lost")
        let (rb, rB) = pair("still_reachable"), (sb, _) = pair("suppressed")
        return "\(db) block(s) definitely lost (\(dB) bytes), \(ib) indirectly (\(iB) bytes), \(sb) suppressed, \(rb) still reachable (\(rB) bytes)"
    }

    /// One group of a `leak` report: `48 bytes in 1 block(s) definitely
    /// lost`; a definitely lost group with blocks hanging from it as
    /// valgrind says it, `5080 bytes (40 direct, 5040 indirect) in 1
    /// block(s) definitely lost`.
    public static func groupTitle(_ g: JSONValue) -> String {
        let cls = g["class"]?.stringValue ?? "?"
        let count = g["count"]?.intValue ?? 0, bytes = g["bytes"]?.intValue ?? 0
        let indirect = g["indirect"]?["bytes"]?.intValue ?? 0
        // Checked: two counts near Int.max must not trap in their sum.
        let (total, overflow) = bytes.addingReportingOverflow(indirect)
        let sum = overflow ? "\(bytes) + \(indirect)" : "\(total)"
        let amount = indirect > 0 ? "\(sum) bytes (\(bytes) direct, \(indirect) indirect)" : "\(bytes) bytes"
        return "\(amount) in \(count) block(s) \(cls.replacingOccurrences(of: "_", with: " "))"
    }

    private func renderLeak(_ r: Report) -> String {
        let trigger = r.sections["leak"]?["trigger"]?.stringValue ?? "?"
        var out = "  \(r.process.name ?? "?") (pid \(r.process.pid), \(trigger)): \(Self.totals(of: r))\n"
        let groups = r.sections["groups"]?.arrayValue ?? []
        for g in groups.prefix(maxGroups) {
            out += "    \(Self.groupTitle(g)) at \(origin(g["allocation_stack"], images: r.images))\n"
        }
        if groups.count > maxGroups { out += "    … \(groups.count - maxGroups) more group(s) in the report\n" }
        return out
    }

    private func renderGrowth(_ r: Report) -> String {
        let g = r.sections["leak_growth"]
        let growth = g?["growth_bytes"]?.intValue ?? 0, live = g?["live_bytes"]?.intValue ?? 0
        let n = g?["snapshots"]?.intValue ?? 0
        return "  \(r.process.name ?? "?") (pid \(r.process.pid)): growing by \(growth) bytes over \(n) snapshots (now \(live) live bytes) at "
            + "\(origin(r.sections["allocation_stack"], images: r.images))\n"
    }

    /// "function (file:line)" of the first frame that is not an allocator
    /// (a Rust function named as Rust prints it, `RustSymbolName`);
    /// "image + offset" when that frame has no symbol (a stripped program's
    /// own code: naming the first symbolized frame below it would name
    /// `__libc_start_call_main` for every leak of a stripped `tar`).
    func origin(_ stack: JSONValue?, images: [Report.Image]?) -> String {
        guard let frames = stack?.arrayValue, !frames.isEmpty else { return "(stack not recorded)" }
        for f in frames {
            guard let name = f["symbol"]?["function"]?.stringValue else { return unsymbolized(f, images: images) }
            if Self.allocatorFunctions.contains(name) { continue }
            var text = RustSymbolName.display(name)
            if let file = f["symbol"]?["file"]?.stringValue {
                text += " (\((file as NSString).lastPathComponent)"
                if let line = f["symbol"]?["line"]?.intValue { text += ":\(line)" }
                text += ")"
            }
            return text
        }
        return unsymbolized(frames[0], images: images)
    }

    /// `tar + 0x4ed99`, or the pc when the frame lies in no known image.
    private func unsymbolized(_ f: JSONValue, images: [Report.Image]?) -> String {
        let pc = f["pc"]?.stringValue ?? "?"
        guard let i = f["image"]?.intValue, let images, images.indices.contains(i),
              let offset = f["offset"]?.stringValue else { return pc }
        return "\(StackFormatter.shortName(images[i].path)) + \(offset)"
    }
}
