/// The environment a victim runs with: the runner's own, minus anything
/// that would inject or configure a second agent, plus the injection
/// variables, plus the scenario's `env` (which wins).
enum VictimEnvironment {
    /// Builds the environment; returns it and the variables the runner set
    /// or the scenario added (for the `command` file).
    static func make(
        scenario: Scenario, base: [String: String], reportDirectory: String, preload: [String]
    ) -> (full: [String: String], added: [(String, String)]) {
        var env = base.filter { !$0.key.hasPrefix("FAULTLINE_") && $0.key != "LD_PRELOAD" }
        var added: [(String, String)] = []
        func set(_ k: String, _ v: String) {
            env[k] = v
            added.removeAll { $0.0 == k }
            added.append((k, v))
        }
        if !preload.isEmpty { set("LD_PRELOAD", preload.joined(separator: ":")) }
        set("FAULTLINE_REPORT_DIR", reportDirectory)
        set("FAULTLINE_DETECTORS", scenario.inject.isEmpty ? "none" : scenario.inject.map(\.rawValue).joined(separator: ","))
        set("FAULTLINE_CAPTURE_STDERR", "1")
        set("SWIFT_BACKTRACE", "enable=no")
        for (k, v) in scenario.env.sorted(by: { $0.key < $1.key }) { set(k, v) }
        return (env, added)
    }
}
