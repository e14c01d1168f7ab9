import CFaultlineAgent

/// Installs the Faultline agent into the running Swift program.
///
/// Call early in `main`. The agent then writes one JSON report per fatal
/// signal into the report directory (see docs/agent.md).
public enum FaultlineAgent {
    /// An installation failure, with the agent's own explanation.
    public struct InstallError: Error, CustomStringConvertible {
        /// What went wrong, naming the file or value involved.
        public let description: String
    }

    /// Installs the agent. `reportDirectory` defaults to
    /// `$FAULTLINE_REPORT_DIR`, else `./faultline-reports`.
    public static func install(
        reportDirectory: String? = nil,
        captureStderr: Bool = false,
        maxFrames: Int = 0
    ) throws {
        let rc: Int32 = withOptionalCString(reportDirectory) { dir in
            var options = faultline_options()
            options.report_dir = dir
            options.capture_stderr = captureStderr ? 1 : 0
            options.max_frames = Int32(maxFrames)
            return faultline_install(&options)
        }
        if rc != 0 {
            throw InstallError(description: String(cString: faultline_last_error()))
        }
    }

    /// Says the program has finished starting (its window is up, its
    /// server listens): the end of the launch the `launch` detector
    /// measures, and from then on the `cpu` detector watches for threads
    /// that burn a core (docs/resources.md). The first call counts.
    public static func ready() { faultline_ready() }

    /// Undoes `install()`: the program's own fault and terminate handlers
    /// are back, the agent's threads have ended, and `install()` may be
    /// called again (`faultline_uninstall`; docs/agent.md says what stays).
    public static func uninstall() { _ = faultline_uninstall() }

    /// Whether the agent is installed in this process.
    public static var isInstalled: Bool { faultline_is_installed() != 0 }

    /// Attaches `key`: `value` to every report written from now on
    /// (`faultline_annotate`); nil or "" removes it. False for an empty key,
    /// one over 63 bytes, or when 32 keys are held already.
    @discardableResult
    public static func annotate(_ key: String, _ value: String?) -> Bool {
        withOptionalCString(value) { faultline_annotate(key, $0) } == 0
    }

    /// Names the step of its work the program is in ("startup",
    /// "checkout"), written into every report from now on; nil clears it
    /// (`faultline_set_phase`).
    public static func setPhase(_ name: String?) {
        _ = withOptionalCString(name) { faultline_set_phase($0) }
    }

    private static func withOptionalCString<R>(_ s: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
        guard let s else { return body(nil) }
        return s.withCString { body($0) }
    }
}
