import Foundation

/// Reads an AddressSanitizer or LeakSanitizer report from its stderr text:
/// the `ERROR: AddressSanitizer: KIND` (or LeakSanitizer) line, mapped onto
/// Faultline's class names, and the functions of the first stack after it.
public enum DetectSanitizerReport {
    /// Parses the stderr text; nil className when it holds no report.
    public static func parse(_ text: String) -> DetectVerdict {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.contains("ERROR: AddressSanitizer: ") || $0.contains("ERROR: LeakSanitizer: ") })
        else { return DetectVerdict(className: nil) }
        let header = lines[start]
        let kind: String
        if header.contains("LeakSanitizer") { kind = "leak" } else {
            let after = header.components(separatedBy: "ERROR: AddressSanitizer: ")[1]
            kind = after.hasPrefix("attempting double-free") ? "double-free"
                : after.hasPrefix("attempting free") ? "bad-free" : String(after.prefix { $0 != " " })
        }
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
        return DetectVerdict(className: className(asanKind: kind), frames: frames)
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
        case "SEGV": return "crash"
        default: return "asan:" + asanKind
        }
    }
}
