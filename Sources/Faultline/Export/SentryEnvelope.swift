import Foundation

/// A Sentry envelope (newline-separated: a header, then for each item an
/// item header with its `length` and the payload): the event, and the
/// Faultline report itself as a JSON attachment (for a leak group, the
/// report with that group alone in `groups`). One event per envelope, as
/// Sentry takes them: a leak report is one envelope per group.
public enum SentryEnvelope {
    /// The envelope for `item` (a report, or one leak group of one); `dsn`
    /// goes into the header when given.
    public static func make(_ item: ExportItem, dsn: SentryDSN? = nil, sentAt: Date = Date()) throws -> Data {
        let event = SentryEvent.event(item)
        let eventData = try JSONSerialization.data(withJSONObject: event, options: [.sortedKeys, .withoutEscapingSlashes])
        let reportData = try JSONEncoderFactory.plain().encode(item.attachedReport)
        var header: [String: Any] = ["event_id": event["event_id"]!, "sent_at": iso(sentAt),
                                     "sdk": ["name": "faultline", "version": FaultlineVersion.text]]
        if let dsn { header["dsn"] = dsn.text }
        var out = Data()
        func line(_ o: [String: Any]) throws {
            out += try JSONSerialization.data(withJSONObject: o, options: [.sortedKeys, .withoutEscapingSlashes])
            out += Data("\n".utf8)
        }
        try line(header)
        try line(["type": "event", "length": eventData.count, "content_type": "application/json"])
        out += eventData + Data("\n".utf8)
        try line(["type": "attachment", "length": reportData.count, "content_type": "application/json",
                  "filename": "faultline-\(item.id).json", "attachment_type": "event.attachment"])
        out += reportData + Data("\n".utf8)
        return out
    }

    static func iso(_ d: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: d)
    }
}
