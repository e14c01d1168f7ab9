import Faultline

/// The checks of one report expectation against one report.
enum ReportCheck {
    /// Every failed check of `e` against `c`; `symbolizer` is nil when no
    /// symbolizer was found (said in frame failures); `victimPid` is what
    /// `$victim_pid` in a `match` value stands for.
    static func failures(_ e: ReportExpectation, _ c: ExpectationChecker.Candidate, symbolizer: String?,
                         victimPid: Int32? = nil) -> [CheckFailure] {
        let r = c.report
        var out: [CheckFailure] = []
        if let kind = e.kind, kind != r.kind {
            out.append(CheckFailure("kind", expected: kind, found: r.kind))
        }
        if let signal = e.signal, signal != r.signal?.name {
            out.append(CheckFailure("signal", expected: signal, found: r.signal?.name ?? "no signal in the report"))
        }
        if let code = e.code, code != r.signal?.codeName {
            out.append(CheckFailure("code", expected: code, found: r.signal?.codeName ?? "no signal in the report"))
        }
        if let thread = e.thread, thread != r.crashedThread?.name {
            let found = r.crashedThread.map { t in "\(t.name.map { "'\($0)'" } ?? "an unnamed thread") (tid \(t.tid))" }
            out.append(CheckFailure("thread", expected: "'\(thread)'", found: found ?? "no crashed thread in the report"))
        }
        if !e.frames.isEmpty, let f = framesFailure(e.frames, r.crashedThread, symbolizer: symbolizer) {
            out.append(f)
        }
        for m in e.match {
            let (value, missingAt) = m.path.resolve(in: c.json)
            if let problem = MatchEvaluator.mismatch(m.expected, value, victimPid: victimPid) {
                let found = value == nil && missingAt != nil ? "nothing at \(missingAt!)" : problem
                out.append(CheckFailure("match \(m.path)", expected: expectedText(m.expected, victimPid: victimPid), found: found))
            }
        }
        if let limit = e.maxDetectionMs {
            if let ms = detectionMs(r) {
                if ms > limit {
                    out.append(CheckFailure("max_detection_ms", expected: "at most \(formatNumber(limit)) ms", found: "\(formatNumber((ms * 10).rounded() / 10)) ms"))
                }
            } else {
                out.append(CheckFailure("max_detection_ms", expected: "at most \(formatNumber(limit)) ms", found: "no detection_ms or capture.duration_ns in the report"))
            }
        }
        return out
    }

    /// `expected` as a failure prints it, with the pid `$victim_pid` stood
    /// for: `$victim_pid (= 5540)`, `{pid: $victim_pid} ($victim_pid = 5540)`.
    static func expectedText(_ expected: MatchValue, victimPid: Int32?) -> String {
        guard expected.mentionsVictimPid, let victimPid else { return expected.description }
        if case .victimPid = expected { return "\(expected) (= \(victimPid))" }
        return "\(expected) (\(MatchValue.victimPidSpelling) = \(victimPid))"
    }

    /// The report's `detection_ms` section, else `capture.duration_ns` in ms.
    static func detectionMs(_ r: Report) -> Double? {
        if let n = r.sections["detection_ms"]?.numberValue { return n }
        if let ns = r.capture?.durationNs { return Double(ns) / 1e6 }
        return nil
    }

    /// Function names of a thread, innermost first, inlined frames expanded
    /// (innermost first too); unresolved frames show their address.
    static func functionNames(_ thread: Report.ThreadInfo) -> [String] {
        thread.frames.flatMap { frame -> [String] in
            guard let s = frame.symbol else { return ["\(frame.pc)"] }
            return (s.inlined ?? []).map(\.function) + [s.function]
        }
    }

    static func framesFailure(_ expected: [String], _ thread: Report.ThreadInfo?, symbolizer: String?) -> CheckFailure? {
        guard let thread else {
            return CheckFailure("frames", expected: "\(expected.joined(separator: ", ")) in the crashed thread", found: "no crashed thread in the report")
        }
        let names = functionNames(thread)
        var cursor = 0
        for (k, want) in expected.enumerated() {
            guard let hit = names[cursor...].firstIndex(where: { $0.contains(want) }) else {
                let after = k > 0 ? " after \(expected[k - 1])" : ""
                let shown = names.prefix(10).map { abbreviate($0, limit: 60) }.joined(separator: ", ") + (names.count > 10 ? ", …" : "")
                let note = symbolizer == nil ? " (no llvm-symbolizer found; frames are unresolved)" : ""
                return CheckFailure("frames", expected: "\(want)\(after) in crashed thread", found: "[\(shown)]\(note)")
            }
            cursor = hit + 1
        }
        return nil
    }
}
