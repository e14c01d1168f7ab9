/// The few top-level fields `report groups` needs of a report (schema,
/// kind, time, process, host, phase, signature), read straight from the
/// JSON bytes: every other value is skipped by matching brackets and
/// strings, never built. A cold run over 100 000 reports spent nearly all
/// its time in full JSON parses of values it then threw away.
///
/// It answers nil whenever it is not sure (no signature, another schema,
/// a value of an unexpected type, bytes after the object, a truncated
/// file); the caller then reads the report with the full decoder, which
/// gives the real error. It checks bracket balance, not the whole JSON
/// grammar: a file damaged inside a skipped value but still balanced is
/// grouped by its fields rather than refused.
public enum ReportFieldReader {
    /// The records of the report in `bytes`, or nil (use the full decoder).
    public static func records(_ bytes: UnsafeRawBufferPointer, supportedSchemaVersion: Int) -> [GroupRecord]? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var s = JSONByteScanner(p: base, n: bytes.count)
        var schema: String?, version: UInt64?, kind: String?, time: UInt64?, id: String?
        var processName: String?, hasPid = false, host: String?, phase: String?
        var sigID: String?, sigText: String?, leaks: [(String?, String?)]?
        let ok = s.object { s, key in
            switch key {
            case "schema": schema = s.string(); return schema != nil
            case "schema_version": version = s.unsigned(); return version != nil
            case "kind": kind = s.string(); return kind != nil
            case "time_unix_ms": time = s.unsigned(); return time != nil
            case "id": id = s.string(); return id != nil
            case "host": host = s.stringOrNull(); return true
            case "phase": phase = s.stringOrNull(); return true
            case "process":
                return s.object { s, key in
                    switch key {
                    case "pid": hasPid = s.unsigned() != nil; return hasPid
                    case "name": processName = s.stringOrNull(); return true
                    default: return s.skipValue()
                    }
                }
            case "signature":
                return s.object { s, key in
                    switch key {
                    case "id": sigID = s.string(); return sigID != nil
                    case "text": sigText = s.string(); return sigText != nil
                    case "leak_groups":
                        var list: [(String?, String?)] = []
                        let ok = s.array { s in
                            var g: (String?, String?) = (nil, nil)
                            let ok = s.object { s, key in
                                switch key {
                                case "id": g.0 = s.stringOrNull(); return true
                                case "text": g.1 = s.stringOrNull(); return true
                                default: return s.skipValue()
                                }
                            }
                            list.append(g)
                            return ok
                        }
                        leaks = list
                        return ok
                    default: return s.skipValue()
                    }
                }
            default: return s.skipValue()
            }
        }
        guard ok, s.atEnd(), schema == "faultline.report", let version, version >= 1, version <= UInt64(max(0, supportedSchemaVersion)),
              let kind, let time, hasPid, id != nil, let sigID, let sigText else { return nil }
        let base0 = GroupRecord(kind: kind, timeUnixMs: time, process: processName ?? "?", machine: host ?? "?",
                                phase: phase, signatureID: sigID, signatureText: sigText)
        guard let leaks, !leaks.isEmpty else { return [base0] }
        return leaks.compactMap { g in
            guard let id = g.0, let text = g.1 else { return nil }
            var r = base0
            r.signatureID = id
            r.signatureText = text
            return r
        }
    }
}

/// A forward-only reader over JSON bytes: reads the strings and numbers it
/// is asked for, skips everything else. Every method returns nil/false on
/// anything unexpected, leaving the caller to give up.
struct JSONByteScanner {
    let p: UnsafePointer<UInt8>
    let n: Int
    var i = 0

    private mutating func ws() {
        while i < n, p[i] == 0x20 || p[i] == 0x0a || p[i] == 0x0d || p[i] == 0x09 { i += 1 }
    }

    /// True when only whitespace is left.
    mutating func atEnd() -> Bool {
        ws()
        return i == n
    }

    /// `{ "key": value, … }`, calling `member` with the scanner on each value.
    mutating func object(_ member: (inout JSONByteScanner, String) -> Bool) -> Bool {
        ws()
        guard i < n, p[i] == UInt8(ascii: "{") else { return false }
        i += 1
        ws()
        if i < n, p[i] == UInt8(ascii: "}") { i += 1; return true }
        while true {
            ws()
            guard let key = string() else { return false }
            ws()
            guard i < n, p[i] == UInt8(ascii: ":") else { return false }
            i += 1
            guard member(&self, key) else { return false }
            ws()
            guard i < n else { return false }
            if p[i] == UInt8(ascii: ",") { i += 1; continue }
            if p[i] == UInt8(ascii: "}") { i += 1; return true }
            return false
        }
    }

    /// `[ value, … ]`, calling `element` on each.
    mutating func array(_ element: (inout JSONByteScanner) -> Bool) -> Bool {
        ws()
        guard i < n, p[i] == UInt8(ascii: "[") else { return false }
        i += 1
        ws()
        if i < n, p[i] == UInt8(ascii: "]") { i += 1; return true }
        while true {
            guard element(&self) else { return false }
            ws()
            guard i < n else { return false }
            if p[i] == UInt8(ascii: ",") { i += 1; continue }
            if p[i] == UInt8(ascii: "]") { i += 1; return true }
            return false
        }
    }

    /// A string value, escapes decoded; nil when the value is not a string.
    mutating func string() -> String? {
        ws()
        guard i < n, p[i] == UInt8(ascii: "\"") else { return nil }
        i += 1
        let start = i
        while i < n, p[i] != UInt8(ascii: "\""), p[i] != UInt8(ascii: "\\") { i += 1 }
        guard i < n else { return nil }
        if p[i] == UInt8(ascii: "\"") {
            defer { i += 1 }
            return String(decoding: UnsafeBufferPointer(start: p + start, count: i - start), as: UTF8.self)
        }
        // Escapes: the slow path, byte by byte.
        var out = Array(UnsafeBufferPointer(start: p + start, count: i - start))
        while i < n {
            let c = p[i]
            if c == UInt8(ascii: "\"") { i += 1; return String(decoding: out, as: UTF8.self) }
            if c != UInt8(ascii: "\\") { out.append(c); i += 1; continue }
            guard i + 1 < n else { return nil }
            let e = p[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "n"): out.append(0x0a)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0d)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0c)
            case UInt8(ascii: "u"):
                guard var unit = hex4() else { return nil }
                if (0xd800..<0xdc00).contains(unit) {
                    // A surrogate pair: the low half must follow.
                    guard i + 1 < n, p[i] == UInt8(ascii: "\\"), p[i + 1] == UInt8(ascii: "u") else { return nil }
                    i += 2
                    guard let low = hex4(), (0xdc00..<0xe000).contains(low) else { return nil }
                    unit = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00)
                }
                guard let scalar = Unicode.Scalar(unit) else { return nil }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            default: return nil
            }
        }
        return nil
    }

    private mutating func hex4() -> UInt32? {
        guard i + 4 <= n else { return nil }
        var v: UInt32 = 0
        for k in 0..<4 {
            let c = p[i + k]
            let d: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            v = v << 4 | UInt32(d)
        }
        i += 4
        return v
    }

    /// A string, or nil for `null` (consumed); any other value fails the
    /// caller's next step because it is left unread.
    mutating func stringOrNull() -> String? {
        ws()
        if i + 4 <= n, p[i] == UInt8(ascii: "n"), p[i + 1] == UInt8(ascii: "u"), p[i + 2] == UInt8(ascii: "l"), p[i + 3] == UInt8(ascii: "l") {
            i += 4
            return nil
        }
        return string()
    }

    /// A non-negative integer without fraction or exponent (what reports
    /// write for times, versions and pids); nil for anything else.
    mutating func unsigned() -> UInt64? {
        ws()
        let start = i
        var v: UInt64 = 0
        while i < n, p[i] >= UInt8(ascii: "0"), p[i] <= UInt8(ascii: "9") {
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(UInt64(p[i] - UInt8(ascii: "0")))
            guard !o1, !o2 else { return nil }
            v = a
            i += 1
        }
        guard i > start else { return nil }
        if i < n, p[i] == UInt8(ascii: ".") || p[i] == UInt8(ascii: "e") || p[i] == UInt8(ascii: "E") { return nil }
        return v
    }

    /// Skips one value of any type: strings by their quotes (escapes
    /// honoured), objects and arrays by bracket depth.
    mutating func skipValue() -> Bool {
        ws()
        guard i < n else { return false }
        switch p[i] {
        case UInt8(ascii: "\""): return skipString()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while i < n {
                let c = p[i]
                if c == UInt8(ascii: "\"") {
                    guard skipString() else { return false }
                    continue
                }
                if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") { depth += 1 }
                else if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
                    depth -= 1
                    if depth == 0 { i += 1; return true }
                }
                i += 1
            }
            return false
        default:
            // A number or literal: up to the next delimiter.
            let start = i
            while i < n, p[i] != UInt8(ascii: ","), p[i] != UInt8(ascii: "}"), p[i] != UInt8(ascii: "]"),
                  p[i] != 0x20, p[i] != 0x0a, p[i] != 0x0d, p[i] != 0x09 { i += 1 }
            return i > start
        }
    }

    private mutating func skipString() -> Bool {
        i += 1
        while i < n {
            let c = p[i]
            if c == UInt8(ascii: "\\") { i += 2; continue }
            i += 1
            if c == UInt8(ascii: "\"") { return true }
        }
        return false
    }
}
