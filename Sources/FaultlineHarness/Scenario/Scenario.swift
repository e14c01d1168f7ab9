/// One scenario: a victim command, what to inject into it, and exactly what
/// must be observed. Loaded from a YAML file (docs/scenarios.md).
public struct Scenario: Sendable {
    /// Unique name across the suite; `faultline run FILTER` matches it by substring.
    public var name: String
    /// One line saying what the scenario does.
    public var description: String?
    /// Where the scenario was defined.
    public var source: SourceLocation
    /// A product name (looked up in the build directory), an absolute path,
    /// a path relative to the scenario file, or a program name on PATH.
    public var victim: String
    /// Arguments after the victim's name.
    public var args: [String]
    /// Detectors to turn on (`FAULTLINE_DETECTORS`).
    public var inject: [Detector]
    /// How the agent gets into the victim.
    public var mode: InjectionMode
    /// Extra environment; overrides the runner's defaults.
    public var env: [String: String]
    /// Wall-clock limit in seconds; the whole process group is killed at it.
    public var timeout: Double
    /// Memory limit in bytes: the victim runs in a fresh memory cgroup.
    public var memoryLimit: UInt64?
    /// Named requirements; an unmet one makes the scenario SKIP.
    public var requires: [String]
    /// What must be observed.
    public var expect: ScenarioExpectation
    /// Why the scenario is expected to fail (`xfail:`): its failure is XFAIL, its pass XPASS.
    public var xfail: String? = nil

    /// The timeout used when a scenario names none.
    public static let defaultTimeout: Double = 30

    /// Creates a scenario (the loader is the usual way).
    public init(
        name: String, description: String? = nil, source: SourceLocation, victim: String, args: [String] = [],
        inject: [Detector] = [], mode: InjectionMode = .preload, env: [String: String] = [:],
        timeout: Double = Scenario.defaultTimeout, memoryLimit: UInt64? = nil, requires: [String] = [],
        expect: ScenarioExpectation = ScenarioExpectation()
    ) {
        self.name = name
        self.description = description
        self.source = source
        self.victim = victim
        self.args = args
        self.inject = inject
        self.mode = mode
        self.env = env
        self.timeout = timeout
        self.memoryLimit = memoryLimit
        self.requires = requires
        self.expect = expect
    }

    /// True when `inject` needs the malloc shim loaded.
    public var needsMallocShim: Bool { inject.contains { $0.needsMallocShim } }
}

/// A file and line, printed `FILE:LINE`.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The file as it was given to the loader.
    public var file: String
    /// 1-based line.
    public var line: Int

    /// Creates a location.
    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    public var description: String { "\(file):\(line)" }
}

/// A detector a scenario can inject.
public enum Detector: String, Sendable, CaseIterable, Codable {
    case crash
    case cxxException = "cxx_exception"
    case hang
    case memory
    case cpu
    case fds
    case threads
    case launch
    case useAfterFree = "use_after_free"
    case leaks
    case shim

    /// True for detectors that live in the malloc shim.
    public var needsMallocShim: Bool {
        switch self {
        case .useAfterFree, .leaks, .shim: return true
        default: return false
        }
    }
}

/// How the agent gets into the victim.
public enum InjectionMode: String, Sendable, CaseIterable, Codable {
    /// `LD_PRELOAD` the agent (and the malloc shim when needed).
    case preload
    /// The victim links the agent itself; only the environment is set.
    case linked
}
