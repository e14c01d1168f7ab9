/// Reports of one signature (and, when grouping by phase, one phase):
/// what `faultline report groups` prints per line.
public struct ReportGroup: Sendable, Codable {
    /// The signature's id.
    public var signature: String
    /// The signature's text.
    public var text: String
    /// The kind of its reports.
    public var kind: String
    /// The phase, when grouped by phase (nil: none was set, or not split).
    public var phase: String?
    /// How many reports (leak groups, for leaks).
    public var count: Int
    /// The earliest report's time (ISO-8601 UTC, milliseconds).
    public var firstSeen: String
    /// The latest report's time.
    public var lastSeen: String
    /// Process names, sorted.
    public var processes: [String]
    /// Machines, sorted.
    public var machines: [String]
    /// One report of the group (the latest).
    public var example: String
}
