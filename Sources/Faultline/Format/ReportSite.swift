/// Where a report's event happened, to tell a repeat from a new error: the
/// report's kind, its signal, and the image and offset of every frame of the
/// reported thread and of every stack in its sections (a heap error's
/// allocation and free stacks). Offsets, not addresses, so the same site in
/// two processes (forked workers, or one program run twice) is one site.
///
/// Only kinds whose event is defined by where it happened have a site:
/// crashes, uncaught C++ exceptions and the malloc shim's heap errors. A
/// hang, a leak report or an OOM kill describes a state, and two of them
/// with equal stacks can still say different things, so they have none.
/// `faultline exec` prints a report whose site an earlier report had as one
/// line, as valgrind counts repeated errors and AddressSanitizer's
/// `suppress_equal_pcs` skips them.
public struct ReportSite: Hashable, Sendable {
    /// Kinds that can have a site.
    public static let kinds: Set<String> = [
        "crash", "cxx_exception", "double_free", "invalid_free", "alloc_dealloc_mismatch", "new_delete_type_mismatch",
        "write_after_free", "use_after_free",
    ]

    private struct FrameKey: Hashable, Sendable {
        var image: String?
        var offset: UInt64
    }

    private let kind: String
    private let signal: Int?
    private let stacks: [String: [FrameKey]]

    /// The report's site, nil for kinds without one or a report with no
    /// frames at all.
    public init?(_ report: Report) {
        guard Self.kinds.contains(report.kind) else { return nil }
        let images = report.images ?? []
        func key(_ f: Report.Frame) -> FrameKey {
            let image = f.image.flatMap { images.indices.contains($0) ? images[$0] : nil }
            let offset = f.offset?.value ?? image?.loadBias.map { f.pc.value &- $0.value } ?? f.pc.value
            return FrameKey(image: image?.path, offset: offset)
        }
        var stacks: [String: [FrameKey]] = [:]
        if let thread = report.crashedThread { stacks["crashed_thread"] = thread.frames.map(key) }
        for (name, value) in report.sections {
            var frames: [FrameKey] = []
            _ = SectionFrames.map(value) { o, _ in
                if let f = SectionFrames.frame(o) { frames.append(key(f)) }
                return o
            }
            if !frames.isEmpty { stacks[name] = frames }
        }
        guard stacks.values.contains(where: { !$0.isEmpty }) else { return nil }
        self.kind = report.kind
        self.signal = report.signal?.number
        self.stacks = stacks
    }
}
