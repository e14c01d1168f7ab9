/// Short human descriptions of scenarios, for `faultline list`.
public enum ScenarioSummary {
    /// `victim-c null-deref`.
    public static func command(_ s: Scenario) -> String {
        ([s.victim] + s.args).map(ShellQuote.quote).joined(separator: " ")
    }

    /// `crash (preload)`, `none`.
    public static func injection(_ s: Scenario) -> String {
        s.inject.isEmpty ? "none" : s.inject.map(\.rawValue).joined(separator: ",") + (s.mode == .linked ? " (linked)" : "")
    }

    /// `SIGSEGV; 1 report: crash SIGSEGV SEGV_MAPERR frames victim_null_deref; stderr "…"`.
    public static func expectation(_ s: Scenario) -> String {
        let e = s.expect
        var parts: [String] = []
        if let exit = e.exit { parts.append(exit.description) }
        if let reports = e.reports {
            if reports.isEmpty { parts.append("no reports") }
            for r in reports {
                var words: [String] = [r.kind ?? "report"]
                if let sig = r.signal { words.append(sig) }
                if let code = r.code { words.append(code) }
                if let t = r.thread { words.append("on '\(t)'") }
                if !r.frames.isEmpty { words.append("frames " + r.frames.joined(separator: ">")) }
                for m in r.match { words.append("\(m.path)=\(abbreviate(m.expected.description, limit: 40))") }
                if let ms = r.maxDetectionMs { words.append("<=\(formatNumber(ms))ms") }
                parts.append(words.joined(separator: " "))
            }
        }
        for t in e.stderrContains { parts.append("stderr \"\(abbreviate(t, limit: 40))\"") }
        for t in e.stdoutContains { parts.append("stdout \"\(abbreviate(t, limit: 40))\"") }
        for t in e.stderrLacks { parts.append("no stderr \"\(abbreviate(t, limit: 40))\"") }
        var extra: [String] = []
        if let m = s.memoryLimit { extra.append("memory_limit \(Units.describe(bytes: m))") }
        if !s.requires.isEmpty { extra.append("requires " + s.requires.joined(separator: ",")) }
        return (parts + extra).joined(separator: "; ")
    }
}
