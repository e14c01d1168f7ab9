/// One self-contained HTML page for a set of reports (a directory, a run
/// of `faultline exec`, a scenario suite): inline CSS and SVG, no script,
/// nothing fetched. It opens on a summary of the reports' groups with
/// their counts (`PageGroup`), then has one section per report, the
/// reports of a group together (`ReportSection`); past the first few of a
/// group, a section has its header and headline only, so 10 000 reports
/// of a few sites still make a page a browser opens quickly.
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
    /// Reports of one group drawn in full; later ones get a compact section.
    public var fullReportsPerGroup = 3

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
        var number = 0
        for (_, members) in groups {
            var first: (anchor: String, number: Int)?
            for (k, item) in members.enumerated() {
                number += 1
                let section = ReportSection(report: item.report, warnings: item.warnings, path: item.path, index: number)
                if k < fullReportsPerGroup {
                    body += section.render()
                    if first == nil { first = (ReportSection.anchor(item.report, index: number), number) }
                } else {
                    body += section.renderCompact(sameAs: first!)
                }
            }
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

    /// Counts by kind, then the table of groups, each linked to its first report.
    private func summary(_ groups: [(PageGroup, [Item])], total: Int) -> String {
        var kinds: [String: Int] = [:]
        for (g, members) in groups { kinds[g.kind, default: 0] += members.count }
        var out = "<section class=\"summary\" id=\"summary\">\n"
        out += "<p class=\"totals\">\(total) report\(total == 1 ? "" : "s") in \(groups.count) group\(groups.count == 1 ? "" : "s"): "
        out += kinds.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .map { "<span class=\"count kind-\(HTMLText.escaped($0.key))\">\($0.value) \(HTMLText.escaped($0.key))</span>" }.joined(separator: ", ")
        out += "</p>\n"
        guard !groups.isEmpty else { return out + "<p>No reports.</p></section>\n" }
        out += "<table class=\"groups\"><thead><tr><th>reports</th><th>kind</th><th>top program frame</th><th>processes</th><th>first</th></tr></thead><tbody>\n"
        var number = 0
        for (g, members) in groups {
            let first = members[0].report
            var names: [String] = []
            for m in members { let n = m.report.process.name ?? "?"; if !names.contains(n) { names.append(n) } }
            let processes = names.prefix(3).joined(separator: ", ") + (names.count > 3 ? ", …" : "")
            out += "<tr><td class=\"n\">\(members.count)</td><td>\(HTMLText.escaped(g.kind))</td><td class=\"fn\">\(HTMLText.escaped(g.frame))</td>"
            out += "<td>\(HTMLText.escaped(processes))</td><td><a href=\"#\(ReportSection.anchor(first, index: number + 1))\">\(HTMLText.escaped(ReportSummary.shortTime(first)))</a></td></tr>\n"
            number += members.count
        }
        return out + "</tbody></table>\n</section>\n"
    }
}
