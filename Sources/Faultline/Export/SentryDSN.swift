import Foundation

/// A Sentry DSN, `https://PUBLIC_KEY@HOST[:PORT][/PATH]/PROJECT_ID`: where
/// envelopes go (`<scheme>://HOST/PATH/api/PROJECT_ID/envelope/`) and the
/// key that authenticates them. GlitchTip and Bugsink take the same.
public struct SentryDSN: Sendable, Hashable, CustomStringConvertible {
    /// A DSN that does not parse, with what is wrong.
    public struct ParseError: Error, CustomStringConvertible {
        /// The DSN given (its key shown as given: it is not a secret).
        public var dsn: String
        /// What is missing.
        public var reason: String
        public var description: String {
            "the DSN \(dsn.debugDescription) is not a Sentry DSN: \(reason); give https://KEY@HOST/PROJECT_ID as the project's settings show it"
        }
    }

    /// The public key.
    public var publicKey: String
    /// The envelope endpoint.
    public var envelopeURL: URL
    /// The DSN as given.
    public var text: String

    /// Parses `text`.
    public init(_ text: String) throws(ParseError) {
        guard let c = URLComponents(string: text), let scheme = c.scheme, ["http", "https"].contains(scheme) else {
            throw ParseError(dsn: text, reason: "it is not an http or https URL")
        }
        guard let key = c.user, !key.isEmpty else { throw ParseError(dsn: text, reason: "it has no public key before @") }
        guard let host = c.host, !host.isEmpty else { throw ParseError(dsn: text, reason: "it has no host") }
        var parts = c.path.split(separator: "/").map(String.init)
        guard let project = parts.popLast(), !project.isEmpty, project.allSatisfy(\.isNumber) || project.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
            throw ParseError(dsn: text, reason: "it has no project id at the end of its path")
        }
        var e = URLComponents()
        e.scheme = scheme
        e.host = host
        e.port = c.port
        e.path = "/" + (parts + ["api", project, "envelope"]).joined(separator: "/") + "/"
        guard let url = e.url else { throw ParseError(dsn: text, reason: "its host or path cannot make a URL") }
        publicKey = key
        envelopeURL = url
        self.text = text
    }

    /// The `X-Sentry-Auth` header value.
    public func authHeader(client: String) -> String {
        "Sentry sentry_version=7, sentry_client=\(client), sentry_key=\(publicKey)"
    }

    /// The DSN without its key, for messages and the sent ledger.
    public var description: String { envelopeURL.absoluteString }
}
