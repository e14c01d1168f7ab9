/// The annotations and phase a program attached to a report
/// (`faultline_annotate`, `faultline_set_phase`, `faultline exec
/// --annotate`): the report's `annotations` object and `phase` string.
public enum Annotations {
    /// Key/value pairs, sorted by key.
    public static func values(of report: Report) -> [(String, String)] {
        guard case .object(let o)? = report.sections["annotations"] else { return [] }
        return o.compactMap { k, v in v.stringValue.map { (k, $0) } }.sorted { $0.0 < $1.0 }
    }

    /// The phase, if one was set.
    public static func phase(of report: Report) -> String? {
        report.sections["phase"]?.stringValue
    }
}
