import Foundation

/// The environment that injects the Faultline agent (and, for its
/// detectors, the malloc shim) into an unmodified program through
/// `LD_PRELOAD`, as `faultline exec` does.
public struct AgentInjection: Sendable {
    /// File name of the injectable agent.
    public static let agentLibrary = "libFaultlineAgentPreload.so"
    /// File name of the malloc shim.
    public static let shimLibrary = "libFaultlineMallocShim.so"

    /// Directory holding both libraries (next to the `faultline` binary).
    public var libraryDirectory: String
    /// The detectors to turn on; nil leaves `FAULTLINE_DETECTORS` unset
    /// (every detector).
    public var detectors: DetectorSelection?
    /// Preload the malloc shim (when a shim detector is selected).
    public var useShim: Bool
    /// Route the program's stderr through the agent to keep its tail.
    public var captureStderr: Bool
    /// Where the agent writes reports.
    public var reportDirectory: String
    /// The malloc shim's suppressions file (`FAULTLINE_SUPPRESSIONS`), an
    /// absolute path; nil leaves the variable as it is.
    public var suppressions: String?
    /// Have the malloc shim print a suppression for each leak group and heap
    /// error it reports (`FAULTLINE_GEN_SUPPRESSIONS=1`).
    public var genSuppressions = false

    /// `FAULTLINE_LOG`: where the agent's and the shim's lines go
    /// (ToolLogChannel); nil leaves the variable as it is.
    public var logChannel: String?
    /// False: only the program itself gets the agent (`FAULTLINE_TRACE_CHILDREN=no`).
    public var traceChildren = true
    /// `FAULTLINE_TRACE_CHILDREN_SKIP`: executables that run without Faultline.
    public var traceChildrenSkip: String?
    /// `FAULTLINE_LEAK_CHECK_SKIP`: executables whose exit leak check is skipped.
    public var leakCheckSkip: String?

    /// Creates an injection description.
    public init(libraryDirectory: String, detectors: DetectorSelection?, useShim: Bool, captureStderr: Bool, reportDirectory: String) {
        self.libraryDirectory = libraryDirectory
        self.detectors = detectors
        self.useShim = useShim
        self.captureStderr = captureStderr
        self.reportDirectory = reportDirectory
    }

    /// A missing library. The description is one line saying how to build it.
    public struct MissingLibrary: Error, CustomStringConvertible, Sendable {
        /// The path looked for.
        public let path: String
        /// The SwiftPM product that builds it.
        public let product: String
        /// Extra advice.
        public let hint: String
        public var description: String {
            "\(path) not found; build it with `swift build --product \(product)`\(hint)"
        }
    }

    /// True when the shim is preloaded for this selection.
    public var preloadsShim: Bool { useShim && (detectors ?? .all).needsShim }

    /// The libraries to preload, agent first; throws when one is missing.
    public func libraries() throws(MissingLibrary) -> [String] {
        let agent = "\(libraryDirectory)/\(Self.agentLibrary)"
        guard FileManager.default.fileExists(atPath: agent) else {
            throw MissingLibrary(path: agent, product: "FaultlineAgentPreload", hint: "")
        }
        guard preloadsShim else { return [agent] }
        let shim = "\(libraryDirectory)/\(Self.shimLibrary)"
        guard FileManager.default.fileExists(atPath: shim) else {
            throw MissingLibrary(path: shim, product: "FaultlineMallocShim", hint: ", or pass --no-shim")
        }
        return [agent, shim]
    }

    /// `base` with the injection applied: our libraries prepended to any
    /// `LD_PRELOAD`, the `FAULTLINE_*` variables set, and the Swift
    /// runtime's backtracer turned off unless `SWIFT_BACKTRACE` is set.
    public func environment(_ base: [String: String]) throws(MissingLibrary) -> [String: String] {
        var env = base
        let existing = (base["LD_PRELOAD"] ?? "").trimmingCharacters(in: .whitespaces)
        env["LD_PRELOAD"] = (try libraries() + (existing.isEmpty ? [] : [existing])).joined(separator: ":")
        env["FAULTLINE_REPORT_DIR"] = reportDirectory
        if let detectors { env["FAULTLINE_DETECTORS"] = detectors.environmentValue }
        if let suppressions { env["FAULTLINE_SUPPRESSIONS"] = suppressions }
        if genSuppressions { env["FAULTLINE_GEN_SUPPRESSIONS"] = "1" }
        if let logChannel { env["FAULTLINE_LOG"] = logChannel }
        if !traceChildren { env["FAULTLINE_TRACE_CHILDREN"] = "no" }
        if let traceChildrenSkip { env["FAULTLINE_TRACE_CHILDREN_SKIP"] = traceChildrenSkip }
        if let leakCheckSkip { env["FAULTLINE_LEAK_CHECK_SKIP"] = leakCheckSkip }
        if captureStderr { env["FAULTLINE_CAPTURE_STDERR"] = "1" } else { env.removeValue(forKey: "FAULTLINE_CAPTURE_STDERR") }
        // The Swift runtime's own backtracer would print a second crash
        // report and park a thread that never answers the agent's stack
        // request (costing the whole per-thread timeout). A value the user
        // set is kept.
        if env["SWIFT_BACKTRACE"] == nil { env["SWIFT_BACKTRACE"] = "enable=no" }
        return env
    }

    /// The directory of the running executable (`/proc/self/exe`), where
    /// SwiftPM puts the libraries next to `faultline`.
    public static func executableDirectory() -> String? {
        guard let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        return (exe as NSString).deletingLastPathComponent
    }
}
