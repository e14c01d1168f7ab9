/// The signature lines under a report's header (`report show`): the
/// report's own, and for a leak report each leak group's, since each
/// group is a bug of its own (grouped, exported and counted apart), with
/// the group's title to tell them apart:
///
///     signature: 420e31564b74c4d0  leak definitely_lost | leak_name | main
///     leak group signatures (2):
///       420e31564b74c4d0  leak definitely_lost | leak_name | main  (200 bytes in 1 block(s) definitely lost)
///       a42e1e42d460e1bb  leak definitely_lost | leak_node | main  (48 bytes in 1 block(s) definitely lost)
enum SignatureLines {
    /// The lines; none when the report has no signature.
    static func lines(_ report: Report) -> [String] {
        guard let sig = report.signature else { return [] }
        var out = ["signature: \(sig.id)  \(OneLine.escaped(sig.text))"]
        let groups = ExportItem.items(of: report).filter { $0.leakGroup != nil }
        guard !groups.isEmpty else { return out }
        out.append("leak group signatures (\(groups.count)):")
        for g in groups {
            let title = g.groupValue.map { "  (\(LeakSummary.groupTitle($0)))" } ?? ""
            out.append("  \(g.signature.id)  \(OneLine.escaped(g.signature.text))\(title)")
        }
        return out
    }
}
