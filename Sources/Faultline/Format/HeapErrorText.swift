import Foundation

/// How `ReportFormatter` shows the malloc shim's blocks, in the manner of
/// AddressSanitizer: the reported thread is titled by what it did (`second
/// free by thread 7:`), then the block's history as `freed by thread 7
/// here:` and `previously allocated by thread 7 here:` over their stacks —
/// for the shim's own reports and for a crash the shim traced to a freed or
/// never-initialised block (`memory_error`).
///
/// What `MemoryErrorHeadline` already says (the block, the call) and stacks
/// that repeat the reported thread's frames (`second_free_stack`,
/// `deallocation_stack`) are not printed again as `key: value` trees; a field
/// neither shows is still printed under its section's name, so a field the
/// shim adds later is not lost.
enum HeapErrorText {
    /// The report kinds the malloc shim writes about one block.
    static let shimKinds: Set<String> = [
        "double_free", "invalid_free", "alloc_dealloc_mismatch", "new_delete_type_mismatch", "write_after_free",
        "heap_buffer_overflow", "heap_buffer_underflow",
    ]

    /// The block fields `MemoryErrorHeadline` shows.
    private static let blockFields: Set<String> = ["address", "size", "offset", "state", "allocated_by_tid", "freed_by_tid"]

    /// Each shim kind's own section, and the fields of it the headline shows.
    private static let callFields: [String: Set<String>] = [
        "double_free": ["operation", "pointer"],
        "invalid_free": ["operation", "pointer", "reason"],
        "alloc_dealloc_mismatch": ["allocation", "deallocation", "pointer"],
        "new_delete_type_mismatch": ["allocation", "deallocation", "pointer", "deallocated_size", "allocated_alignment",
                                     "deallocated_alignment", "allocated_size"],
        "write_after_free": ["offset", "length", "detected", "bytes", "changed_blocks"],
        "heap_buffer_overflow": ["offset", "length", "detected", "bytes"],
        "heap_buffer_underflow": ["region", "distance", "length", "detected"],
    ]

    /// The fields of a crash's `memory_error` the headline shows (its block
    /// and stacks are shown apart).
    private static let memoryErrorFields: Set<String> = ["kind", "evidence", "pattern_in", "pattern_value", "found_via"]

    /// What the reported thread did, for its title (`second free by thread
    /// 7 "name" (main):`); nil for reports the shim did not write.
    static func threadVerb(_ r: Report) -> String? {
        guard MemoryErrorHeadline.lines(r).isEmpty == false else { return nil }
        switch r.kind {
        case "double_free": return "second free"
        case "invalid_free": return "invalid free"
        case "alloc_dealloc_mismatch", "new_delete_type_mismatch": return "released"
        case "write_after_free", "heap_buffer_overflow", "heap_buffer_underflow": return "found"
        default: return nil
        }
    }

    /// The block's free and allocation stacks, each after an empty line.
    static func body(_ r: Report, stacks: StackFormatter) -> [String] {
        guard let (holder, block) = blockHolder(r) else { return [] }
        let state = block?["state"]?.stringValue
        let freed = (r.kind == "double_free" ? "first freed" : "freed") + StackTitle.by(block?["freed_by_tid"]) + " here:"
        let allocated = (state == "live" ? "allocated" : "previously allocated") + StackTitle.by(block?["allocated_by_tid"]) + " here:"
        return StackTitle.lines(freed, holder["free_stack"], stacks) + StackTitle.lines(allocated, holder["allocation_stack"], stacks)
    }

    /// The sections to print otherwise than as they are: nil to leave one
    /// out (the text above shows it all), an object to print only the
    /// fields nothing above shows.
    static func sectionOverrides(_ r: Report) -> [String: JSONValue?] {
        guard !MemoryErrorHeadline.lines(r).isEmpty else { return [:] }
        var out: [String: JSONValue?] = [:]
        if shimKinds.contains(r.kind) {
            for key in ["allocation_stack", "free_stack"] where SectionFrames.stack(r.sections[key]) != nil { out[key] = .some(nil) }
            // The reported thread's own frames again (docs/report-schema.md).
            let threadPCs = r.crashedThread?.frames.map(\.pc.value)
            for key in ["second_free_stack", "deallocation_stack"] {
                if let frames = SectionFrames.stack(r.sections[key]), frames.map(\.pc.value) == threadPCs { out[key] = .some(nil) }
            }
            if let block = r.sections["block"] { out["block"] = rest(block, shown: blockFields) }
            if let fields = callFields[r.kind], let call = r.sections[r.kind] {
                var shown = fields
                // The headline names the block's size, not the size `new` was given.
                if call["allocated_size"]?.integerValue != r.sections["block"]?["size"]?.integerValue { shown.remove("allocated_size") }
                out[r.kind] = rest(call, shown: shown)
            }
        } else if let m = r.sections["memory_error"], case .object(var fields) = m {
            for key in ["allocation_stack", "free_stack"] where SectionFrames.stack(fields[key]) != nil { fields[key] = nil }
            if let block = fields["block"] {
                if let left = rest(block, shown: blockFields) { fields["block"] = left } else { fields["block"] = nil }
            }
            out["memory_error"] = rest(.object(fields), shown: memoryErrorFields)
        }
        return out
    }

    /// The object holding the block's stacks (the report's sections, or a
    /// crash's `memory_error`) and the block.
    private static func blockHolder(_ r: Report) -> ([String: JSONValue], JSONValue?)? {
        guard !MemoryErrorHeadline.lines(r).isEmpty else { return nil }
        if shimKinds.contains(r.kind) { return (r.sections, r.sections["block"]) }
        guard case .object(let m)? = r.sections["memory_error"] else { return nil }
        return (m, m["block"])
    }

    /// `value` without the `shown` fields; nil when nothing is left.
    private static func rest(_ value: JSONValue, shown: Set<String>) -> JSONValue? {
        guard case .object(let o) = value else { return value }
        let left = o.filter { !shown.contains($0.key) }
        return left.isEmpty ? nil : .object(left)
    }
}
