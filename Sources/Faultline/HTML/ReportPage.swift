/// One self-contained HTML page for a set of reports (a directory, a run
/// of `faultline exec`, a scenario suite): inline CSS and SVG, no script,
/// nothing fetched. It opens on a summary of the reports' groups with
/// their counts (`PageGroup`), then has one section per group: its first
/// report drawn in full (`ReportSection`) and one row for each other
/// report of the group (`RepeatRows`), so 10 000 reports of a few sites
/// are a few drawings and a few closed lists, which a browser opens quickly.
public struct ReportPage: Sendable {
    /// A report on the page.
    public struct Item: Sendable {
        /// The report, symbolicated or not.
        public var report: Report
        /// Why some of its frames are not symbolicated.
        public var warnings: [SymbolicationWarning]
        /// The file it was read from.
        public var path: String?

        /// An item.
        public init(report: Report, warnings: [SymbolicationWarning] = [], path: String? = nil) {
            self.report = report
            self.warnings = warnings
            self.path = path
        }
    }

    /// The page's title and heading.
    public var title: String

    /// A page titled `title`.
    public init(title: String) { self.title = title }

    /// The page for `items`; `skipped` lists the files that were not
    /// readable reports (one line each on the page).
    public func render(_ items: [Item], skipped: [String] = []) -> String {
        let groups = Self.grouped(items)
        var body = "<h1>\(HTMLText.escaped(title))</h1>\n"
        body += summary(groups, total: items.count)
        if !skipped.isEmpty {
            body += "<section class=\"skipped\"><h2>\(skipped.count) file(s) that are not readable reports</h2><ul>\n"
            body += skipped.map { "<li>\(HTMLText.escaped($0))</li>\n" }.joined() + "</ul></section>\n"
        }
        for (k, (group, members)) in groups.enumerated() {
            body += "<section class=\"group\" id=\"\(Self.anchor(k))\">\n"
            body += "<p class=\"group-head\"><span class=\"n\">\(members.count) report\(members.count == 1 ? "" : "s")</span> "
                + "<span class=\"sig\">\(HTMLText.escaped(group.text))</span></p>\n"
            let first = members[0]
            body += ReportSection(report: first.report, warnings: first.warnings, path: first.path, index: k + 1).render()
            if members.count > 1 { body += RepeatRows(members.dropFirst()).render() }
            body += "</section>\n"
        }
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <title>\(HTMLText.escaped(title))</title>
            <style>
            \(PageStyle.css)</style></head><body>
            \(body)</body></html>

            """
    }

    /// The groups, most reports first, each with its reports in time order.
    static func grouped(_ items: [Item]) -> [(PageGroup, [Item])] {
        var byGroup: [PageGroup: [Item]] = [:]
        for item in items { byGroup[PageGroup.key(of: item.report), default: []].append(item) }
        return byGroup.map { ($0.key, $0.value.sorted { $0.report.orderingTimeNs < $1.report.orderingTimeNs }) }
            .sorted { a, b in a.1.count != b.1.count ? a.1.count > b.1.count : a.0 < b.0 }
    }

    /// The anchor of the `k`th group's section.
    static func anchor(_ k: Int) -> String { "g\(k + 1)" }

    /// Counts by kind, then the table of groups, each linked to its section.
    private func summary(_ groups: [(PageGroup, [Item])], total: Int) -> String {
        var kinds: [String: Int] = [:]
        for (g, members) in groups { kinds[g.kind, default: 0] += members.count }
        var out = "<section class=\"summary\" id=\"summary\">\n"
        out += "<p class=\"totals\">\(total) report\(total == 1 ? "" : "s") in \(groups.count) group\(groups.count == 1 ? "" : "s"): "
        out += kinds.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .map { "<span class=\"count kind-\(HTMLText.escaped($0.key))\">\($0.value) \(HTMLText.escaped($0.key))</span>" }.joined(separator: ", ")
        out += "</p>\n"
        guard !groups.isEmpty else { return out + "<p>No reports.</p></section>\n" }
        out += "<table class=\"groups\"><thead><tr><th>reports</th><th>kind</th><th>signature</th><th>processes</th><th>first</th></tr></thead><tbody>\n"
        for (k, (g, members)) in groups.enumerated() {
            var names: [String] = []
            for m in members { let n = m.report.process.name ?? "?"; if !names.contains(n) { names.append(n) } }
            let processes = names.prefix(3).joined(separator: ", ") + (names.count > 3 ? ", …" : "")
            out += "<tr><td class=\"n\">\(members.count)</td><td>\(HTMLText.escaped(g.kind))</td><td class=\"fn\">\(HTMLText.escaped(g.text))</td>"
            out += "<td>\(HTMLText.escaped(processes))</td><td><a href=\"#\(Self.anchor(k))\">\(HTMLText.escaped(ReportSummary.shortTime(members[0].report)))</a></td></tr>\n"
        }
        return out + "</tbody></table>\n</section>\n"
    }
}
