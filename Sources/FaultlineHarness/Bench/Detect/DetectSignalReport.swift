/// Reads what Electric Fence, DUMA and glibc's malloc checks say: their
/// abort message on stderr (the class) and, since they print no stack, the
/// backtrace gdb prints of the thread that took the signal (the frames).
/// A fault with no message is the guard page doing its work (`guard_fault`).
public enum DetectSignalReport {
    /// The tool's verdict from the run's stderr and gdb's output; `signaled`
    /// is false when the victim ended normally (then only a message counts).
    public static func parse(stderr: String, gdb: String, signaled: Bool) -> DetectVerdict {
        let frames = backtrace(gdb)
        if let c = messageClass(stderr) { return DetectVerdict(className: c, frames: frames) }
        guard signaled else { return DetectVerdict(className: nil) }
        return DetectVerdict(className: inAllocator(frames) ? "heap_corruption" : "guard_fault", frames: frames)
    }

    /// The class an abort message names; nil when there is none.
    /// - Electric Fence: `ElectricFence Aborting: free(…): address not from malloc().`
    ///   (a double free and a wild free alike) -> invalid_free.
    /// - DUMA: `DUMA Aborting: free(…): memory already freed.` -> double_free;
    ///   `… not from DUMA …` -> invalid_free; `Free mismatch: allocator 'vector new[]' used but
    ///   deallocator 'free()' called!` -> alloc_dealloc_mismatch; a damaged no-man's-land -> heap_buffer_overflow.
    /// - glibc: `free(): double free detected in tcache 2` -> double_free; any
    ///   other check (`free(): invalid pointer`, `malloc(): corrupted top size`,
    ///   `double free or corruption (out)`) names the check, not the bug -> heap_corruption.
    static func messageClass(_ text: String) -> String? {
        if let m = after(text, "ElectricFence Aborting: ") {
            if m.contains("freeing free memory") { return "double_free" }
            return m.contains("not from malloc") ? "invalid_free" : "efence:" + String(m.prefix(60))
        }
        if let m = after(text, "DUMA Aborting: ") {
            if m.hasPrefix("Free mismatch") { return "alloc_dealloc_mismatch" }
            if m.contains("already freed") && !m.contains("not from") { return "double_free" }
            if m.contains("not from DUMA") || m.contains("already freed") { return "invalid_free" }
            if m.contains("no man") || m.contains("overwrit") || m.contains("corrupt") { return "heap_buffer_overflow" }
            return "duma:" + String(m.prefix(60))
        }
        if text.contains("double free detected") { return "double_free" }
        let glibcChecks = ["free(): ", "malloc(): ", "realloc(): ", "calloc(): ", "munmap_chunk(): ", "malloc_consolidate(): ",
                           "double free or corruption", "corrupted size vs. prev_size", "corrupted double-linked list"]
        if glibcChecks.contains(where: text.contains) { return "heap_corruption" }
        return nil
    }

    private static func after(_ text: String, _ marker: String) -> Substring? {
        guard let r = text.range(of: marker) else { return nil }
        return text[r.upperBound...].prefix { $0 != "\n" }
    }

    /// True when the fault is inside the allocator (its innermost frame
    /// before the program's is free, malloc or a check of theirs): the
    /// allocator fell over on a bad pointer, glibc's `free_check` reading
    /// the header of a block already unmapped.
    static func inAllocator(_ frames: [String]) -> Bool {
        let allocator = ["free", "malloc", "realloc", "calloc", "chunk", "_int_", "tcache", "_duma_", "EF_"]
        return frames.prefix(4).contains { f in allocator.contains { f.contains($0) } }
    }

    /// Function names of gdb's `bt` lines, innermost first:
    /// `#5  0x… in fixture_free_again (p=…) at v.c:3` and `#0  fixture_overflow (p=…) at v.c:4`.
    static func backtrace(_ gdb: String) -> [String] {
        var frames: [String] = []
        for line in gdb.split(separator: "\n") {
            guard line.hasPrefix("#"), let space = line.firstIndex(of: " ") else { continue }
            guard line[line.index(after: line.startIndex)..<space].allSatisfy(\.isNumber) else { continue }
            var rest = line[space...].drop { $0 == " " }
            if rest.hasPrefix("0x"), let r = rest.range(of: " in ") { rest = rest[r.upperBound...] }
            let name = rest.prefix { $0 != " " && $0 != "(" }
            if !name.isEmpty { frames.append(String(name)) }
        }
        return frames
    }
}
