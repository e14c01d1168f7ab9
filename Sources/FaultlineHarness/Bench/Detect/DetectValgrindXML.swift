import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads valgrind memcheck's `--xml=yes` output (protocol 4) with XMLParser:
/// each `<error>`'s kind, mapped onto Faultline's class names, with the
/// functions of its first `<stack>`, and the `<fatal_signal>` that ended the
/// program (a crash) with its stack.
public enum DetectValgrindXML {
    /// The first error; nil className when the XML holds none.
    public static func parse(_ data: Data) -> DetectVerdict {
        parseAll(data).first ?? DetectVerdict(className: nil)
    }

    /// Every error in order, then the fatal signal, if any.
    public static func parseAll(_ data: Data) -> [DetectVerdict] {
        let reader = Reader()
        let parser = XMLParser(data: data)
        parser.delegate = reader
        _ = parser.parse()
        return reader.errors.map { DetectVerdict(className: className(kind: $0.kind, auxwhat: $0.auxwhat), frames: $0.frames) }
            + (reader.fatal.map { [DetectVerdict(className: "crash", frames: $0)] } ?? [])
    }

    /// valgrind kind -> Faultline class. The first auxwhat says where the
    /// address is: "N bytes inside a block of size S free'd" (a use after
    /// free, or a double free for InvalidFree), "N bytes after/before a block
    /// … alloc'd" (an overflow/underflow), "not stack'd, malloc'd or
    /// (recently) free'd" (a wild access: what a crash is).
    static func className(kind: String, auxwhat: String) -> String {
        let first = auxwhat.split(separator: "\n").first.map(String.init) ?? ""
        let wild = first.contains("not stack'd")
        let freed = !wild && first.contains("free'd")
        switch kind {
        case "InvalidFree": return freed ? "double_free" : "invalid_free"
        case "MismatchedFree": return "alloc_dealloc_mismatch"
        case "InvalidRead", "InvalidWrite":
            if freed { return "use_after_free" }
            if first.contains("bytes before a block") { return "heap_buffer_underflow" }
            return first.contains("bytes after a block") || first.contains("bytes inside a block") ? "heap_buffer_overflow" : "invalid_access"
        case "UninitCondition", "UninitValue": return "uninitialized_read"
        case _ where kind.hasPrefix("Leak_"): return "leak"
        default: return "valgrind:" + kind
        }
    }

    private final class Reader: NSObject, XMLParserDelegate {
        struct Error { var kind = "", auxwhat = "", frames: [String] = [] }
        var errors: [Error] = []
        var fatal: [String]?
        private var path: [String] = []
        private var text = ""
        private var stacks = 0

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            path.append(name)
            text = ""
            switch name {
            case "error": errors.append(Error()); stacks = 0
            case "fatal_signal": fatal = []; stacks = 0
            case "stack": stacks += 1
            default: break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            let parent = path.count >= 2 ? path[path.count - 2] : ""
            if path.contains("error"), !errors.isEmpty {
                switch name {
                case "kind" where parent == "error": errors[errors.count - 1].kind = text
                case "auxwhat": errors[errors.count - 1].auxwhat += text + "\n"
                case "fn" where stacks == 1 && path.contains("stack"): errors[errors.count - 1].frames.append(text)
                default: break
                }
            } else if path.contains("fatal_signal"), name == "fn", stacks == 1 {
                fatal?.append(text)
            }
            path.removeLast()
            text = ""
        }
    }
}
