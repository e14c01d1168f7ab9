import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads valgrind memcheck's `--xml=yes` output (protocol 4) with XMLParser:
/// the first `<error>`'s kind, mapped onto Faultline's class names, and the
/// functions of its first `<stack>`.
public enum DetectValgrindXML {
    /// Parses the XML; nil className when it holds no error.
    public static func parse(_ data: Data) -> DetectVerdict {
        let reader = Reader()
        let parser = XMLParser(data: data)
        parser.delegate = reader
        _ = parser.parse()
        guard let kind = reader.kind else { return DetectVerdict(className: nil) }
        return DetectVerdict(className: className(kind: kind, auxwhat: reader.auxwhat), frames: reader.frames)
    }

    /// valgrind kind -> Faultline class. InvalidFree covers double and wild
    /// frees; the "free'd" auxwhat (the block's free stack) tells them apart.
    /// InvalidRead/Write are a use after free when the block was freed, else an overflow.
    static func className(kind: String, auxwhat: String) -> String {
        let freed = auxwhat.contains("free'd")
        switch kind {
        case "InvalidFree": return freed ? "double_free" : "invalid_free"
        case "MismatchedFree": return "alloc_dealloc_mismatch"
        case "InvalidRead", "InvalidWrite": return freed ? "use_after_free" : "heap_buffer_overflow"
        case _ where kind.hasPrefix("Leak_"): return "leak"
        default: return "valgrind:" + kind
        }
    }

    private final class Reader: NSObject, XMLParserDelegate {
        var kind: String?
        var auxwhat = ""
        var frames: [String] = []
        private var path: [String] = []
        private var text = ""
        private var errors = 0
        private var stacks = 0

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            path.append(name)
            text = ""
            if name == "error" { errors += 1 }
            if name == "stack" && errors == 1 { stacks += 1 }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if errors == 1 && path.contains("error") {
                switch name {
                case "kind" where path.count >= 2 && path[path.count - 2] == "error": kind = text
                case "auxwhat": auxwhat += text + "\n"
                case "fn" where stacks == 1 && path.contains("stack"): frames.append(text)
                default: break
                }
            }
            path.removeLast()
            text = ""
        }
    }
}
