/// One thing a server counts: a whole report, or one group of a `leak`
/// report. A leak report holds many bugs (one per allocation site), each
/// with a signature of its own (`signature.leak_groups`); sent as one
/// event, Sentry would file every leak under the largest one's
/// fingerprint. So each group is its own Sentry event and its own OTLP
/// log record, as `report groups` counts it.
public struct ExportItem: Sendable {
    /// The report.
    public var report: Report
    /// The leak group this item is (its index in the report's `groups`);
    /// nil for a whole report.
    public var leakGroup: Int?
    /// The item's signature: the report's, or the group's.
    public var signature: ReportSignature
    /// Unique per report and group, stable across exports: the report id,
    /// or `<report id>-g<index>` for a leak group. Names export files and
    /// the sent ledger's entries.
    public var id: String

    /// The items of `report`: one per leak group with a signature, else
    /// the report itself. A report with no stored signature is signed now.
    public static func items(of report: Report) -> [ExportItem] {
        let signature = report.signature ?? SignatureBuilder().signature(of: report)
        let groups: [(Int, ReportSignature)] = (signature.leakGroups ?? []).compactMap { g in
            guard report.kind == "leak", let i = groupIndex(g.stack) else { return nil }
            return (i, g)
        }
        guard !groups.isEmpty else { return [ExportItem(report: report, leakGroup: nil, signature: signature, id: report.id)] }
        return groups.map { i, g in ExportItem(report: report, leakGroup: i, signature: g, id: "\(report.id)-g\(i)") }
    }

    /// `groups[3].allocation_stack` → 3.
    static func groupIndex(_ stack: String?) -> Int? {
        guard let stack, stack.hasPrefix("groups["), let close = stack.firstIndex(of: "]") else { return nil }
        return Int(stack[stack.index(stack.startIndex, offsetBy: 7)..<close])
    }

    /// The group's object in the report (nil for a whole report).
    var groupValue: JSONValue? {
        guard let leakGroup, let groups = report.sections["groups"]?.arrayValue, groups.indices.contains(leakGroup) else { return nil }
        return groups[leakGroup]
    }

    /// The report as sent beside the item: whole, or for a leak group with
    /// only that group in `groups` (a leak report can be megabytes of
    /// groups; each event carries its own). The group's `held_by` then
    /// names an index of the full report's `groups`.
    var attachedReport: Report {
        guard let g = groupValue else { return report }
        var r = report
        r.sections["groups"] = .array([g])
        return r
    }
}
