extension ReportPage {
    /// The page's items from report files read by `ReportStore`, each
    /// passed through `symbolicator` (nil: left as written), and the
    /// one-line errors of the files that are not reports.
    public static func items(_ entries: [ReportStore.Entry], symbolicator: Symbolicator?) -> (items: [Item], skipped: [String]) {
        var items: [Item] = [], skipped: [String] = []
        for entry in entries {
            switch entry.result {
            case .success(let report):
                let result = symbolicator?.symbolicateWithWarnings(report) ?? Symbolicator.Result(report: report)
                items.append(Item(report: result.report, warnings: result.warnings, path: entry.path))
            case .failure(let error):
                skipped.append("\(error)")
            }
        }
        return (items, skipped)
    }

    /// The page as bytes, written whole or not at all to `path` (a
    /// temporary file renamed into place); nil when written, else one line
    /// naming the path and why.
    public func write(_ items: [Item], skipped: [String] = [], to path: String) -> String? {
        OutputLocation.write(Data(render(items, skipped: skipped).utf8), to: path)
    }
}

import Foundation
