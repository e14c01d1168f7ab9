/// The malloc shim's verdict in one line, AddressSanitizer-style, for the
/// reports whose essentials otherwise sit in sections after every thread:
/// a crash the shim traced to freed or never-initialised memory
/// (`memory_error`), and the shim's own `double_free`, `invalid_free`,
/// `alloc_dealloc_mismatch`, `new_delete_type_mismatch` and
/// `write_after_free` reports (with how many
/// blocks an exit-check report stands for). Printed under the header and
/// signal lines.
enum MemoryErrorHeadline {
    /// The line for `report`, or none when the shim had nothing to say.
    static func lines(_ report: Report) -> [String] {
        let block = report.sections["block"]
        switch report.kind {
        case "double_free":
            guard let d = report.sections["double_free"] else { return [] }
            return ["double free: \(call(d)) of a block already freed" + describe(block)]
        case "invalid_free":
            guard let d = report.sections["invalid_free"] else { return [] }
            let reason = d["reason"]?.stringValue.map { ": " + $0 } ?? ""
            return ["invalid free: \(call(d))\(reason)" + describe(block)]
        case "alloc_dealloc_mismatch":
            guard let m = report.sections["alloc_dealloc_mismatch"] else { return [] }
            let release = "\(m["deallocation"]?.stringValue ?? "free")(\(m["pointer"]?.stringValue ?? "?"))"
            let allocation = m["allocation"]?.stringValue.map { " of a block allocated with " + $0 } ?? ""
            return ["alloc-dealloc mismatch: \(release)\(allocation)" + describe(block)]
        case "new_delete_type_mismatch":
            guard let m = report.sections["new_delete_type_mismatch"] else { return [] }
            return ["new-delete type mismatch: " + typeMismatch(m) + describe(block)]
        case "write_after_free":
            guard let w = report.sections["write_after_free"] else { return [] }
            var text = "write after free:"
            if let n = w["length"]?.integerValue { text += " \(n) byte\(n == 1 ? "" : "s")" }
            if let o = w["offset"]?.integerValue { text += " at offset \(o)" }
            text += " changed after the free"
            if let bytes = w["bytes"]?.stringValue { text += " (now \(bytes))" }
            if let when = w["detected"]?.stringValue { text += ", found at \(when.replacingOccurrences(of: "_", with: " "))" }
            text += describe(block, offset: false)
            // The exit check's one report for a group of blocks with the same stacks.
            if let n = w["changed_blocks"]?.integerValue, n > 1 {
                text += "; \(n - 1) more block\(n == 2 ? "" : "s") allocated and freed at the same stacks changed too (\(n) in all)"
            }
            return [text]
        case "heap_buffer_overflow":
            guard let o = report.sections["heap_buffer_overflow"] else { return [] }
            var text = "heap buffer overflow:"
            if let n = o["length"]?.integerValue { text += " \(n) byte\(n == 1 ? "" : "s") written" }
            if let at = o["offset"]?.integerValue { text += " \(at) past the end" }
            if let bytes = o["bytes"]?.stringValue { text += " (now \(bytes))" }
            if let when = o["detected"]?.stringValue { text += ", found at \(when.replacingOccurrences(of: "_", with: " "))" }
            return [text + describe(block, offset: false)]
        case "heap_buffer_underflow":
            guard let u = report.sections["heap_buffer_underflow"] else { return [] }
            var text = "heap buffer underflow: "
            switch u["region"]?.stringValue {
            case "header": text += "the shim's header in front of the block was overwritten"
            case "live_link": text += "the leak list's links in front of the block were overwritten"
            default:
                let n = u["length"]?.integerValue ?? 0
                text += "\(n) byte\(n == 1 ? "" : "s") written \(u["distance"]?.integerValue ?? 0) in front of the block"
            }
            if let before = u["block_before"], let size = before["size"]?.integerValue {
                text += " (the block before it: \(size) bytes at \(before["address"]?.stringValue ?? "?"))"
            }
            if let when = u["detected"]?.stringValue { text += ", found at \(when.replacingOccurrences(of: "_", with: " "))" }
            return [text + describe(block, offset: false)]
        default:
            guard let m = report.sections["memory_error"], let kind = m["kind"]?.stringValue else { return [] }
            var text = kind.replacingOccurrences(of: "_", with: " ")
            if let why = m["evidence"]?.stringValue { text += ": " + why }
            if let reg = m["pattern_in"]?.stringValue, let value = m["pattern_value"]?.stringValue {
                text += " (\(reg) = \(value))"
            }
            if let via = m["found_via"]?.stringValue { return [text + describe(m["block"], lead: "; \(via) points at ")] }
            return [text + describe(m["block"], lead: "; ")]
        }
    }

    /// `operator delete(0x…) given size 4 of a block allocated with operator
    /// new`: what the delete was given that does not fit the block (its size,
    /// its alignment, or both), and the block's alignment when that differs.
    private static func typeMismatch(_ m: JSONValue) -> String {
        var text = "\(m["deallocation"]?.stringValue ?? "operator delete")(\(m["pointer"]?.stringValue ?? "?"))"
        let allocatedAlign = m["allocated_alignment"]?.integerValue ?? 0
        let given = m["deallocated_alignment"]?.integerValue ?? 0
        // Below 8 counts as the default, as the shim (and AddressSanitizer) count it.
        let givenAlign = given < 8 ? 0 : given
        var wrong: [String] = []
        if let size = m["deallocated_size"]?.integerValue, size != m["allocated_size"]?.integerValue { wrong.append("size \(size)") }
        let wrongAlign = givenAlign != allocatedAlign
        if wrongAlign { wrong.append(givenAlign == 0 ? "the default alignment" : "alignment \(givenAlign)") }
        if !wrong.isEmpty { text += " given " + wrong.joined(separator: " and ") }
        text += " of a block allocated with \(m["allocation"]?.stringValue ?? "operator new")"
        if wrongAlign { text += allocatedAlign == 0 ? " (default alignment)" : " aligned to \(allocatedAlign)" }
        return text
    }

    /// `free(0x…)`, or the operation that freed (`realloc(0x…)`).
    private static func call(_ s: JSONValue) -> String {
        "\(s["operation"]?.stringValue ?? "free")(\(s["pointer"]?.stringValue ?? "?"))"
    }

    /// ` — offset 16 of a quarantined 64-byte block at 0x…, allocated by thread 7, freed by thread 7`
    private static func describe(_ block: JSONValue?, offset: Bool = true, lead: String = " — ") -> String {
        guard let b = block, let size = b["size"]?.integerValue else { return "" }
        var text = lead
        if offset, let o = b["offset"]?.integerValue { text += "offset \(o) of " }
        let state = b["state"]?.stringValue.map { "\($0) " } ?? ""
        text += "a \(state)\(size)-byte block"
        if let a = b["address"]?.stringValue { text += " at \(a)" }
        if let t = b["allocated_by_tid"]?.integerValue { text += ", allocated by thread \(t)" }
        if let t = b["freed_by_tid"]?.integerValue { text += ", freed by thread \(t)" }
        return text
    }
}
