import Foundation

/// The other reports of a group, one row each (number, time, process,
/// file) in a closed `<details>`: the group's first report is drawn above
/// them and its views stand for all, as `faultline exec` prints a repeated
/// report as one line. A closed `<details>` is parsed but not laid out,
/// and a row is one line of text, so 10 000 of them cost the browser little.
struct RepeatRows {
    let items: ArraySlice<ReportPage.Item>

    init(_ items: ArraySlice<ReportPage.Item>) { self.items = items }

    /// The `<details>` with one line a report.
    func render() -> String {
        var out = "<details class=\"repeats\"><summary>\(items.count) more report\(items.count == 1 ? "" : "s") with this signature</summary>\n"
        out += "<pre class=\"repeats\">"
        // Columns padded to their widest cell, so the rows read as a table
        // without a table's elements.
        let rows = items.enumerated().map { k, item in
            let r = item.report
            return ("\(k + 2).", ReportSummary.shortTime(r), "\(r.process.name ?? "?") (pid \(r.process.pid))", item.path ?? "report " + r.id)
        }
        let w0 = rows.map(\.0.count).max() ?? 0, w2 = rows.map(\.2.count).max() ?? 0
        for (n, time, process, file) in rows {
            let padded = n.padding(toLength: w0, withPad: " ", startingAt: 0) + " " + time + "  "
                + process.padding(toLength: w2, withPad: " ", startingAt: 0) + "  " + file
            out += HTMLText.escaped(padded) + "\n"
        }
        return out + "</pre></details>\n"
    }
}
