import Foundation

/// Reads an AddressSanitizer or LeakSanitizer report from its stderr text:
/// the `ERROR: AddressSanitizer: KIND` (or LeakSanitizer) line, mapped onto
/// Faultline's class names, and the functions of the first stack after it;
/// for LeakSanitizer one verdict per leak ("Direct leak of …" block).
public enum DetectSanitizerReport {
    /// The first verdict; nil className when the text holds no report.
    public static func parse(_ text: String) -> DetectVerdict {
        parseAll(text).first ?? DetectVerdict(className: nil)
    }

    /// Every verdict: the error, or each leak of a leak report.
    public static func parseAll(_ text: String) -> [DetectVerdict] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.contains("ERROR: AddressSanitizer: ") || $0.contains("ERROR: LeakSanitizer: ") })
        else { return [] }
        let header = lines[start]
        if header.contains("LeakSanitizer") {
            let blocks = lines.indices.filter { $0 > start && (lines[$0].hasPrefix("Direct leak of") || lines[$0].hasPrefix("Indirect leak of")) }
            return blocks.map { DetectVerdict(className: "leak", frames: stack(lines, after: $0)) }
        }
        let after = header.components(separatedBy: "ERROR: AddressSanitizer: ")[1]
        let kind = after.hasPrefix("attempting double-free") ? "double-free"
            : after.hasPrefix("attempting free") ? "bad-free" : String(after.prefix { $0 != " " })
        return [DetectVerdict(className: className(asanKind: kind), frames: stack(lines, after: start))]
    }

    /// The functions of the first `#N 0x… in FUNCTION …` stack after line `start`.
    private static func stack(_ lines: [String], after start: Int) -> [String] {
        var frames: [String] = []
        var inStack = false
        for line in lines[(start + 1)...] {
            let t = line.trimmingCharacters(in: .whitespaces)
            if t.hasPrefix("#"), let range = t.range(of: " in ") {
                inStack = true
                let function = t[range.upperBound...].prefix { $0 != " " }
                // The sanitizer's own interceptors (malloc, free) are not the program's frames.
                if !t.contains("/compiler-rt/") { frames.append(String(function)) }
            } else if inStack { break }
        }
        return frames
    }

    /// ASan kind -> Faultline class.
    static func className(asanKind: String) -> String {
        switch asanKind {
        case "leak": return "leak"
        case "double-free": return "double_free"
        case "bad-free": return "invalid_free"
        case "heap-use-after-free": return "use_after_free"
        case "heap-buffer-overflow": return "heap_buffer_overflow"
        case "alloc-dealloc-mismatch": return "alloc_dealloc_mismatch"
        case "new-delete-type-mismatch": return "new_delete_type_mismatch"
        case "SEGV", "BUS", "FPE", "ILL", "ABRT", "stack-overflow": return "crash"
        default: return "asan:" + asanKind
        }
    }
}
