/// Direct conversions between frame objects in untyped report sections and
/// `Report.Frame` / `Report.Symbol`, for the shapes writers produce. The
/// general path (encode the JSON value, decode the type) took 40 % of
/// `report show` on a 4 MiB leak report, one JSON round trip per frame; any
/// shape not handled here still goes through it, so results do not change.
enum SectionFrameValues {
    /// The frame `o` describes when it has the usual shape (known keys of
    /// the expected kinds, integers where integers belong), else nil: the
    /// caller then decodes it the general way.
    static func frame(_ o: [String: JSONValue]) -> Report.Frame? {
        guard o.count <= 6, case .string(let pcText)? = o["pc"], let pc = Address(hex: pcText) else { return nil }
        var f = Report.Frame(pc: pc)
        for (key, value) in o {
            if case .null = value, key != "pc" { continue }  // an optional given as null is absent
            switch key {
            case "pc": break
            case "image":
                guard let i = integer(value) else { return nil }
                f.image = i
            case "offset":
                guard case .string(let s) = value, let a = Address(hex: s) else { return nil }
                f.offset = a
            case "return_address":
                guard case .bool(let b) = value else { return nil }
                f.returnAddress = b
            case "symbol":
                guard let s = symbol(value) else { return nil }
                f.symbol = s
            default:
                return nil
            }
        }
        return f
    }

    /// `value` as a symbol when it has the usual shape, else nil.
    static func symbol(_ value: JSONValue) -> Report.Symbol? {
        guard case .object(let o) = value, o.count <= 6, case .string(let function)? = o["function"] else { return nil }
        var s = Report.Symbol(function: function)
        for (key, value) in o {
            if case .null = value, key != "function" { continue }
            switch key {
            case "function": break
            case "file":
                guard case .string(let file) = value else { return nil }
                s.file = file
            case "line":
                guard let n = integer(value) else { return nil }
                s.line = n
            case "column":
                guard let n = integer(value) else { return nil }
                s.column = n
            case "perf_map":
                guard case .string(let path) = value else { return nil }
                s.perfMap = path
            case "inlined":
                guard case .array(let items) = value else { return nil }
                var inlined: [Report.Symbol] = []
                for item in items {
                    guard let i = symbol(item) else { return nil }
                    inlined.append(i)
                }
                s.inlined = inlined
            default:
                return nil
            }
        }
        return s
    }

    /// `symbol` as the JSON value the encoder would write for it (absent
    /// optionals left out, integers as numbers).
    static func json(_ symbol: Report.Symbol) -> JSONValue {
        var o: [String: JSONValue] = ["function": .string(symbol.function)]
        if let file = symbol.file { o["file"] = .string(file) }
        if let line = symbol.line { o["line"] = .number(Double(line)) }
        if let column = symbol.column { o["column"] = .number(Double(column)) }
        if let inlined = symbol.inlined { o["inlined"] = .array(inlined.map(json)) }
        if let perfMap = symbol.perfMap { o["perf_map"] = .string(perfMap) }
        return .object(o)
    }

    /// An integral number small enough to be exact, else nil.
    private static func integer(_ value: JSONValue) -> Int? {
        guard case .number(let n) = value, n.rounded() == n, abs(n) <= 9_007_199_254_740_992 else { return nil }
        return Int(n)
    }
}
