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
        let total = items.reduce(0) { $0 + $1.bytes }, largest = items.map(\.bytes).max() ?? 0
        var out = "<div class=\"sized\">\n"
        if total > 0 {
            out += "<svg class=\"strip\" xmlns=\"http://www.w3.org/2000/svg\" width=\"1100\" height=\"22\" role=\"img\">"
            var x = 0.0
            for item in items where item.bytes / total * 1100 >= 0.5 {
                let w = item.bytes / total * 1100
                out += "<rect class=\"\(item.kind)\" x=\"\(HTMLText.number(x))\" y=\"0\" width=\"\(HTMLText.number(max(w - 1, 0.5)))\" height=\"22\"><title>\(HTMLText.escaped(item.title))</title></rect>"
                x += w
            }
            out += "</svg>\n"
        }
        out += "<ol class=\"groups\">\n"
        for (k, item) in items.enumerated() {
            let share = largest > 0 ? item.bytes / largest * 100 : 0
            let bar = "<span class=\"bar \(item.kind)\" style=\"width:\(HTMLText.number(max(share, 0.3)))%\"></span>"
            let site = item.frames.flatMap { self.origin($0, stacks.text) }.map { " at " + HTMLText.escaped($0) } ?? ""
            let title = "<span class=\"gt\">\(HTMLText.escaped(item.title))\(site)</span>"
            if k < Self.stacksShown {
                let body = item.frames.map { stacks.render($0) } ?? "<p class=\"none\">(allocation stack not recorded)</p>\n"
                out += "<li class=\"group \(item.kind)\"><details\(k == 0 ? " open" : "")><summary><span class=\"track\">\(bar)</span>\(title)</summary>\n\(body)</details></li>\n"
            } else {
                out += "<li class=\"group \(item.kind)\"><span class=\"track\">\(bar)</span>\(title)</li>\n"
            }
        }
        out += "</ol>\n"
        if items.count > Self.stacksShown {
            out += "<p class=\"note\">The stacks of the \(items.count - Self.stacksShown) smallest groups are left out of the page; `faultline report show` prints them.</p>\n"
        }
        if notInReport > 0 { out += "<p class=\"note\">… \(notInReport) more group(s) not in the report.</p>\n" }
        return out + "</div>\n"
    }

    /// The first program frame that is not an allocator.
    private func origin(_ frames: [Report.Frame], _ text: FrameText) -> String? {
        let callers = frames.filter { !LeakSummary.allocatorFunctions.contains($0.symbol?.function ?? "") }
        return (callers.first(where: text.isProgram) ?? callers.first).map(text.short)
    }
}
