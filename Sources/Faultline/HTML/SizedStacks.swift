/// Allocation stacks drawn by their size: a leak report's groups
/// (definitely lost first, then indirectly lost, then still reachable,
/// largest first within each) or the heaviest live stacks of a memory
/// report. A strip shows each one's share of the total; below it one row
/// each, a bar as long as its bytes against the largest and its title,
/// opening on its stack.
struct SizedStacks {
    /// One group or stack.
    struct Item {
        var bytes: Double
        var title: String
        /// `definitely_lost`, `indirectly_lost`, `still_reachable`, `live`.
        var kind: String
        var frames: [Report.Frame]?
    }

    var items: [Item]
    /// Groups the report counted but did not hold.
    var notInReport = 0

    /// Rows that get their stack; the rest are listed by title only, so a
    /// report of 8192 groups still gives a page a browser opens quickly.
    static let stacksShown = 400

    static let order = ["definitely_lost": 0, "indirectly_lost": 1, "still_reachable": 2]

    /// The groups of a `leak` report; nil when it has none.
    init?(leak r: Report) {
        guard r.kind == "leak", let groups = r.sections["groups"]?.arrayValue, !groups.isEmpty else { return nil }
        items = groups.map { g in
            Item(bytes: g["bytes"]?.numberValue ?? 0, title: LeakSummary.groupTitle(g),
                 kind: g["class"]?.stringValue ?? "unknown", frames: SectionFrames.stack(g["allocation_stack"]))
        }
        items.sort { a, b in
            let ka = Self.order[a.kind] ?? 3, kb = Self.order[b.kind] ?? 3
            return ka != kb ? ka < kb : a.bytes > b.bytes
        }
        if let total = r.sections["leak"]?["groups_total"]?.integerValue { notInReport = max(0, Int(total) - groups.count) }
    }

    /// The heaviest allocation stacks of a `memory_warning` or of an
    /// `oom_kill`'s last breadcrumb; nil when there are none.
    init?(topStacksOf r: Report) {
        let list = r.kind == "oom_kill" ? r.sections["last_breadcrumb"]?["top_stacks"] : r.sections["top_stacks"]
        guard let stacks = list?.arrayValue, !stacks.isEmpty else { return nil }
        items = stacks.map { s in
            let bytes = s["live_bytes"]?.numberValue ?? 0
            let blocks = s["live_blocks"]?.integerValue.map { " in \($0) block(s)" } ?? ""
            return Item(bytes: bytes, title: "\(HTMLText.bytes(bytes)) live\(blocks)", kind: "live", frames: SectionFrames.stack(s["frames"]))
        }.sorted { $0.bytes > $1.bytes }
    }

    /// The strip and the rows.
    func render(stacks: StackHTML) -> String {
        let largest = items.map(\.bytes).max() ?? 0
        var out = "<div class=\"sized\">\n" + strip()
        out += "<ol class=\"groups\">\n"
        for (k, item) in items.prefix(Self.stacksShown).enumerated() {
            let share = largest > 0 ? item.bytes / largest * 100 : 0
            let bar = "<span class=\"bar \(item.kind)\" style=\"width:\(HTMLText.number(max(share, 0.3)))%\"></span>"
            let title = "<span class=\"gt\">\(HTMLText.escaped(title(item, stacks.text)))</span>"
            let body = item.frames.map { stacks.render($0) } ?? "<p class=\"none\">(allocation stack not recorded)</p>\n"
            out += "<li class=\"group \(item.kind)\"><details\(k == 0 ? " open" : "")><summary><span class=\"track\">\(bar)</span>\(title)</summary>\n\(body)</details></li>\n"
        }
        out += "</ol>\n"
        if items.count > Self.stacksShown {
            // One line of text each: thousands of rows with a bar each were
            // most of a big leak page's elements, and at this size a bar is
            // a pixel wide.
            let rest = items.dropFirst(Self.stacksShown)
            out += "<details class=\"rest\"><summary>\(rest.count) smaller group\(rest.count == 1 ? "" : "s"), without their stacks "
                + "(`faultline report show` prints them)</summary><pre class=\"rest\">"
            for item in rest { out += HTMLText.escaped(title(item, stacks.text)) + "\n" }
            out += "</pre></details>\n"
        }
        if notInReport > 0 { out += "<p class=\"note\">… \(notInReport) more group(s) not in the report.</p>\n" }
        return out + "</div>\n"
    }

    /// Width of the strip, and of its narrowest box: narrower items are
    /// drawn as one box for each class.
    static let stripWidth = 1100.0, narrowest = 2.0

    /// Every item's share of the bytes as a box in one strip; the items
    /// too narrow to see, one box for each run of them in a class.
    private func strip() -> String {
        let total = items.reduce(0) { $0 + $1.bytes }
        guard total > 0 else { return "" }
        var out = "<svg class=\"strip\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(Self.stripWidth))\" height=\"22\" role=\"img\">"
        var x = 0.0
        func box(_ kind: String, _ bytes: Double, _ title: String) {
            let w = bytes / total * Self.stripWidth
            guard w >= 0.5 else { return }
            out += "<rect class=\"\(kind)\" x=\"\(HTMLText.number(x))\" y=\"0\" width=\"\(HTMLText.number(max(w - 1, 0.5)))\" height=\"22\"><title>\(HTMLText.escaped(title))</title></rect>"
            x += w
        }
        var narrow: (kind: String, count: Int, bytes: Double)?
        func flush() {
            guard let n = narrow else { return }
            box(n.kind, n.bytes, "\(n.count) smaller: \(HTMLText.bytes(n.bytes)) \(n.kind.replacingOccurrences(of: "_", with: " "))")
            narrow = nil
        }
        for item in items {
            if narrow != nil && narrow?.kind != item.kind { flush() }
            if item.bytes / total * Self.stripWidth >= Self.narrowest {
                box(item.kind, item.bytes, item.title)
            } else {
                narrow = (item.kind, (narrow?.count ?? 0) + 1, (narrow?.bytes ?? 0) + item.bytes)
            }
        }
        flush()
        return out + "</svg>\n"
    }

    /// `48 bytes in 1 block(s) definitely lost at make_list main.c:152`.
    private func title(_ item: Item, _ text: FrameText) -> String {
        item.title + (item.frames.flatMap { origin($0, text) }.map { " at " + $0 } ?? "")
    }

    /// The first program frame that is not an allocator.
    private func origin(_ frames: [Report.Frame], _ text: FrameText) -> String? {
        let callers = frames.filter { !LeakSummary.allocatorFunctions.contains($0.symbol?.function ?? "") }
        return (callers.first(where: text.isProgram) ?? callers.first).map(text.short)
    }
}
