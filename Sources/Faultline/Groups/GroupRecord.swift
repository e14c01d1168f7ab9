/// What grouping needs of one report (or one leak group of a leak report):
/// read from the report once, then kept in the folder's index
/// (`GroupIndex`) so later runs need not read the report again.
public struct GroupRecord: Sendable, Hashable {
    /// The report's kind.
    public var kind: String
    /// When the report was started, in milliseconds since the epoch.
    public var timeUnixMs: UInt64
    /// `name[pid]`-less process name (`?` when unknown).
    public var process: String
    /// The machine the report was written on (`host`), `?` when unknown.
    public var machine: String
    /// The program's phase when it was written (`phase`), if any.
    public var phase: String?
    /// The signature's id.
    public var signatureID: String
    /// The signature's text.
    public var signatureText: String

    /// The records of `report`: one, or one per leak group.
    public static func records(of report: Report, signature: ReportSignature) -> [GroupRecord] {
        let machine: String
        if case .string(let h)? = report.sections["host"] { machine = h } else { machine = "?" }
        let phase = Annotations.phase(of: report)
        let base = GroupRecord(kind: report.kind, timeUnixMs: report.timeUnixMs, process: report.process.name ?? "?",
                               machine: machine, phase: phase, signatureID: signature.id, signatureText: signature.text)
        guard let groups = signature.leakGroups, !groups.isEmpty else { return [base] }
        return groups.map { g in
            var r = base
            r.signatureID = g.id
            r.signatureText = g.text
            return r
        }
    }
}
