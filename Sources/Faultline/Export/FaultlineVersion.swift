/// Faultline's version, as exporters name the client (`sentry_client`,
/// the OTLP scope).
public enum FaultlineVersion {
    /// The version text.
    public static let text = "0.1.0"
}
