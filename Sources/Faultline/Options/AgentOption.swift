import CFaultlineOptions

/// One `FAULTLINE_*` variable of the options table that the agent, the
/// malloc shim and the runner read (`Sources/CFaultlineOptions`): what
/// `faultline doctor --options` prints and the docs' option tables list.
public struct AgentOption: Sendable, Equatable {
    /// The variable, `FAULTLINE_…`.
    public let name: String
    /// What it holds: int, bool, size, signal, flag, word, list, text, path.
    public let type: String
    /// Its default as the docs write it (`16M`, `SIGRTMIN+8`, `all`; empty: unset).
    public let defaultValue: String
    /// The default of a number as a plain number (a size in bytes), else nil.
    public let defaultNumber: Int64?
    /// The range of a number (`1…256`), else nil.
    public let range: String?
    /// Who reads it: agent, shim, runner.
    public let owner: String
    /// Names a path or where output goes (ignored under secure execution).
    public let namesOutput: Bool
    /// Set by Faultline for the processes it starts, not by users.
    public let isInternal: Bool
    /// One line of doc.
    public let doc: String

    /// Every row of the table, in its order.
    public static let all: [AgentOption] = (0..<Int(fl_option_count())).compactMap { i in
        guard let row = fl_option_at(Int32(i))?.pointee else { return nil }
        return AgentOption(row)
    }

    private init(_ row: fl_option_info) {
        name = String(cString: row.name)
        owner = String(cString: row.owner)
        doc = String(cString: row.doc)
        namesOutput = row.flags & Int32(FL_OPT_OUTPUT) != 0
        isInternal = row.flags & Int32(FL_OPT_INTERNAL) != 0
        let kind = row.type
        type = Self.typeName(kind)
        defaultNumber = [FL_OPT_INT, FL_OPT_BOOL, FL_OPT_SIZE].contains(kind) ? row.number : nil
        switch kind {
        case FL_OPT_INT, FL_OPT_BOOL:
            defaultValue = String(row.number)
            range = kind == FL_OPT_BOOL ? nil : "\(row.lo)…\(row.hi)"
        case FL_OPT_SIZE:
            defaultValue = Self.size(row.number)
            range = "\(Self.size(row.lo))…\(Self.size(row.hi))"
        case FL_OPT_SIGNAL:
            defaultValue = "SIGRTMIN+\(row.number)"
            range = "SIGRTMIN+\(row.lo)…SIGRTMIN+\(row.hi)"
        default:
            defaultValue = String(cString: row.default_text)
            range = nil
        }
    }

    private static func typeName(_ t: fl_option_type) -> String {
        switch t {
        case FL_OPT_INT: "int"
        case FL_OPT_BOOL: "bool"
        case FL_OPT_SIZE: "size"
        case FL_OPT_SIGNAL: "signal"
        case FL_OPT_FLAG: "flag"
        case FL_OPT_WORD: "word"
        case FL_OPT_LIST: "list"
        case FL_OPT_TEXT: "text"
        default: "path"
        }
    }

    /// Bytes as the docs write them: 16M, 64K, 4096.
    static func size(_ n: Int64) -> String {
        for (shift, unit) in [(40, "T"), (30, "G"), (20, "M"), (10, "K")] where n != 0 && n % (Int64(1) << shift) == 0 {
            return "\(n >> shift)\(unit)"
        }
        return String(n)
    }
}
