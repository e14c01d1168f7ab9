import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends reports to Sentry (an envelope per report, per leak group of a
/// leak report, to the DSN's
/// `/api/<project>/envelope/`, with `X-Sentry-Auth`) or to an OTLP/HTTP
/// logs endpoint (a `LogsData` JSON body per report). Each attempt that
/// fails by the network, a 429 or a 5xx is retried with doubling backoff;
/// a report is marked sent (`SentLedger`) only after a 2xx. When the
/// destination cannot be reached at all, the reports not yet tried are
/// left for the next upload without being tried.
public struct ReportUploader: Sendable {
    /// Where reports go.
    public enum Destination: Sendable, CustomStringConvertible {
        case sentry(SentryDSN)
        case otlp(URL)

        /// The ledger's name for it (no key: the ledger is not a secret).
        var ledgerKey: String {
            switch self {
            case .sentry(let d): return "sentry:" + d.envelopeURL.absoluteString
            case .otlp(let u): return "otlp:" + u.absoluteString
            }
        }

        public var description: String {
            switch self {
            case .sentry(let d): return d.envelopeURL.absoluteString
            case .otlp(let u): return u.absoluteString
            }
        }
    }

    /// What an upload did.
    public struct Outcome: Sendable {
        /// Reports a server accepted now (all of their events).
        public var sent = 0
        /// Requests a server accepted now: a Sentry event each, one per
        /// leak group of a leak report.
        public var events = 0
        /// Reports the ledger already had as sent.
        public var alreadySent = 0
        /// Reports left unsent, with why (the last attempt's answer).
        public var unsent: [(path: String, reason: String)] = []
        /// Attempts made, retries included.
        public var attempts = 0
        /// Problems recording uploads.
        public var warnings: [String] = []
    }

    /// The destination.
    public var destination: Destination
    /// Retries after a failed attempt (so `retries + 1` attempts at most).
    public var retries = 4
    /// The first retry's wait; each later one doubles it.
    public var backoff: TimeInterval = 0.5
    /// One attempt's time limit.
    public var timeout: TimeInterval = 30

    /// An uploader to `destination`.
    public init(destination: Destination) {
        self.destination = destination
    }

    /// Uploads `reports` (each with the path it was read from). A leak
    /// report is one request per leak group to Sentry (one event each),
    /// each recorded in the ledger on its own, so a report half sent when
    /// the server went away sends only the rest next time; it counts as
    /// sent once all its groups are.
    public func upload(_ reports: [(path: String, report: Report)]) async -> Outcome {
        var outcome = Outcome()
        var ledgers: [String: SentLedger] = [:]
        var unreachable: String?
        for (path, report) in reports {
            let dir = (path as NSString).deletingLastPathComponent
            var ledger = ledgers[dir] ?? SentLedger(directory: dir.isEmpty ? "." : dir)
            defer { ledgers[dir] = ledger }
            let items = requestItems(report)
            let left = items.filter { !ledger.isSent($0.id, to: destination.ledgerKey) }
            if left.isEmpty { outcome.alreadySent += 1; continue }
            if let unreachable { outcome.unsent.append((path, unreachable)); continue }
            var failure: String?
            for item in left {
                if let why = await send(item, attempts: &outcome.attempts) {
                    failure = why.reason
                    if why.network { unreachable = why.reason }
                    break
                }
                outcome.events += 1
                if let w = ledger.markSent(item.id, to: destination.ledgerKey) { outcome.warnings.append(w) }
            }
            if let failure { outcome.unsent.append((path, failure)) } else { outcome.sent += 1 }
        }
        return outcome
    }

    /// What one request carries: to Sentry, each export item (a leak group
    /// is an event); to OTLP, the whole report in one body (its records,
    /// one per group), recorded under the report's id.
    func requestItems(_ report: Report) -> [ExportItem] {
        switch destination {
        case .sentry: return ExportItem.items(of: report)
        case .otlp:
            let items = ExportItem.items(of: report)
            return [ExportItem(report: report, leakGroup: nil, signature: items[0].signature, id: report.id)]
        }
    }

    /// Sends one item with retries; nil when a server took it, else why
    /// not and whether the server was not reached at all.
    func send(_ item: ExportItem, attempts: inout Int) async -> (reason: String, network: Bool)? {
        let request: URLRequest
        do { request = try makeRequest(item) }
        catch { return ("cannot encode it: \(error)", false) }
        var wait = backoff
        var attempt = 0
        while true {
            attempt += 1
            attempts += 1
            switch await send(request) {
            case .accepted: return nil
            case .rejected(let why): return (why, false)
            case .retry(let why, let after, let network):
                if attempt <= retries {
                    try? await Task.sleep(nanoseconds: UInt64(max(after ?? wait, 0) * 1e9))
                    wait *= 2
                    continue
                }
                return (why, network)
            }
        }
    }

    enum Answer {
        case accepted
        case rejected(String)
        /// Worth another try: why, a server's Retry-After, and whether the
        /// server was not reached at all.
        case retry(String, TimeInterval?, Bool)
    }

    func makeRequest(_ item: ExportItem) throws -> URLRequest {
        var request: URLRequest
        switch destination {
        case .sentry(let dsn):
            request = URLRequest(url: dsn.envelopeURL)
            request.httpBody = try SentryEnvelope.make(item, dsn: dsn)
            request.setValue("application/x-sentry-envelope", forHTTPHeaderField: "Content-Type")
            request.setValue(dsn.authHeader(client: "faultline/\(FaultlineVersion.text)"), forHTTPHeaderField: "X-Sentry-Auth")
        case .otlp(let url):
            request = URLRequest(url: url)
            request.httpBody = try JSONSerialization.data(withJSONObject: OTLPLogs.logsData([item.report]), options: [.sortedKeys, .withoutEscapingSlashes])
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        request.httpMethod = "POST"
        request.timeoutInterval = timeout
        return request
    }

    func send(_ request: URLRequest) async -> Answer {
        let config = URLSessionConfiguration.ephemeral
        config.timeoutIntervalForRequest = timeout
        let session = URLSession(configuration: config)
        defer { session.finishTasksAndInvalidate() }
        do {
            let (_, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { return .retry("no HTTP answer", nil, true) }
            switch http.statusCode {
            case 200..<300: return .accepted
            case 429, 500..<600:
                let after = http.value(forHTTPHeaderField: "Retry-After").flatMap(TimeInterval.init).map { min($0, 60) }
                return .retry("the server answered \(http.statusCode)", after, false)
            default:
                return .rejected("the server answered \(http.statusCode) (\(HTTPURLResponse.localizedString(forStatusCode: http.statusCode)))")
            }
        } catch {
            return .retry((error as NSError).localizedDescription, nil, true)
        }
    }
}
