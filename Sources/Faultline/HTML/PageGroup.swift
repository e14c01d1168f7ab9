/// Which group a report belongs to on the page: its signature
/// (`ReportSignature`), the one `faultline report groups` groups by, so a
/// page and that command count the same groups. A report that carries
/// none (an unsymbolicated page, an old file) is signed here as
/// `report groups` signs it.
struct PageGroup: Hashable, Comparable {
    /// The report's kind.
    let kind: String
    /// The signature as people read it (`crash SIGSEGV | victim_null_deref`).
    let text: String
    /// The signature's id.
    let id: String

    /// The group of `report`.
    static func key(of report: Report) -> PageGroup {
        let sig = report.signature ?? SignatureBuilder().signature(of: report)
        return PageGroup(kind: report.kind, text: sig.text, id: sig.id)
    }

    static func < (a: PageGroup, b: PageGroup) -> Bool { (a.kind, a.text) < (b.kind, b.text) }
}
