/// One Faultline report: one event (a crash, an uncaught exception, a hang,
/// a leak summary, an OOM kill…) in one JSON file. The schema is
/// `docs/report-schema.md`; `schemaVersion` names its version.
///
/// Sections that only some detectors write and this type does not model are
/// kept in `sections` (keyed by their JSON name) so they survive a round trip;
/// detectors add typed views over them in extensions.
public struct Report: Codable, Sendable {
    /// Always `"faultline.report"`; anything else is a foreign file.
    public var schema: String
    /// Version of the schema the file follows.
    public var schemaVersion: Int
    /// Unique id (16 hex digits).
    public var id: String
    /// What happened: `crash`, `cxx_exception`, `hang`, `deadlock`, `leak`, …
    public var kind: String
    /// The detector that wrote it.
    public var detector: String
    /// ISO-8601 UTC time the report was started.
    public var time: String
    /// The same time in milliseconds since the Unix epoch.
    public var timeUnixMs: UInt64
    /// The same time in nanoseconds, when the writer recorded it (reports
    /// written by the agent and the shim do; older ones and OOM kills do not).
    public var timeUnixNs: UInt64?
    /// When the report was started, in nanoseconds, for ordering reports
    /// written within the same millisecond.
    public var orderingTimeNs: UInt64 { timeUnixNs ?? timeUnixMs &* 1_000_000 }
    /// The process the report is about.
    public var process: ProcessInfo
    /// The signal, for reports caused by one.
    public var signal: SignalInfo?
    /// The thread that crashed (or hung, or threw).
    public var crashedThread: ThreadInfo?
    /// Every other thread.
    public var threads: [ThreadInfo]?
    /// Loaded images, which frames refer to by index.
    public var images: [Image]?
    /// The last bytes the process wrote to stderr, when capture was on.
    public var stderrTail: String?
    /// The Swift runtime's fatal error message, when there was one.
    public var swiftFatalError: String?
    /// Present when the crash handler itself faulted.
    public var recrash: Recrash?
    /// How the report was captured.
    public var capture: Capture?
    /// Fields a crash callback added.
    public var user: [String: JSONValue]?
    /// Which bug this is (`ReportSignature`): set by the symbolicator, and
    /// kept in the file by `faultline exec` (schema version 2).
    public var signature: ReportSignature?
    /// Every other top-level section, by JSON key.
    public var sections: [String: JSONValue] = [:]

    /// The process a report is about.
    public struct ProcessInfo: Codable, Sendable, Hashable {
        public var pid: Int
        public var ppid: Int?
        public var name: String?
        public var executable: String?
    }

    /// The signal that ended (or would have ended) the process.
    public struct SignalInfo: Codable, Sendable, Hashable {
        public var number: Int
        public var name: String
        public var code: Int
        /// `si_code` by name, e.g. `SEGV_MAPERR`.
        public var codeName: String
        public var faultAddress: Address?
        /// For signals sent by a process (`SI_USER`, `SI_TKILL`).
        public var senderPid: Int?
        /// True when the fault looks like a stack overflow (an address from a
        /// page below the stack pointer to 64 KiB above it); absent otherwise.
        public var stackOverflow: Bool?
        /// For a fault signal the process sent itself from a handler of its
        /// own (python3's faulthandler re-raising): the fault that handler
        /// caught, read from the kernel's frame on the stack.
        public var reraisedFault: ReraisedFault?
        /// Whether the faulting access read, wrote or fetched an
        /// instruction, and how many bytes it was (`signal.access`).
        public var access: FaultAccess?
    }

    /// The access that faulted (`signal.access`): from the page-fault
    /// error code, the size (and for a general-protection fault the type)
    /// from the faulting instruction.
    public struct FaultAccess: Codable, Sendable, Hashable {
        /// `read`, `write` or `execute`.
        public var type: String?
        /// Bytes accessed, when the instruction tells it.
        public var size: Int?
        /// `error_code` or `instruction`: where `type` came from.
        public var typeFrom: String?
    }

    /// The fault behind a re-raised signal (`signal.reraised_fault`).
    public struct ReraisedFault: Codable, Sendable, Hashable {
        public var code: Int
        /// `si_code` by name, e.g. `SEGV_MAPERR`.
        public var codeName: String
        public var faultAddress: Address?
        /// The faulting instruction.
        public var pc: Address?
        /// `siginfo` (the frame's, written for an SA_SIGINFO handler) or
        /// `trap_registers` (derived from the trap number, error code and
        /// CR2 the kernel saved).
        public var from: String?
        public var stackOverflow: Bool?
    }

    /// One thread's stack.
    public struct ThreadInfo: Codable, Sendable {
        public var tid: Int
        public var name: String?
        /// True for the process's main thread.
        public var main: Bool?
        /// False when the thread did not answer the directed signal in time.
        public var captured: Bool?
        /// Why the thread's stack was not taken: it blocks the sample
        /// signal, say, or the thread list's deadline passed before its
        /// turn or during its wait (docs/report-schema.md lists the values).
        public var captureSkipped: String?
        /// `frame_pointer` when this thread's stack was taken by frame
        /// pointers while `capture.unwinder` says libunwind (it saw another
        /// thread inside dl_iterate_phdr when asked).
        public var unwinder: String?
        /// True for Faultline's own threads (`faultline-*`, known by id), listed but not
        /// sampled: their stacks are not the program's.
        public var agent: Bool?
        /// Which stack `frames` is, when a detector says (hang reports:
        /// `culprit`, the most-sampled stack, or `current`).
        public var stack: String?
        /// Register values by name, for the crashed thread.
        public var registers: [String: Address]?
        /// Innermost first. Frame 0 is the interrupted instruction unless it
        /// says otherwise (`Frame.returnAddress`); the rest are return
        /// addresses.
        public var frames: [Frame]
        /// Frames left out of a stack deeper than the agent's limit (a stack
        /// overflow): `frames` holds the innermost ones, then the outermost.
        public var framesOmitted: Int?
        /// Index in `frames` where the omitted run would have been.
        public var framesOmittedAt: Int?
    }

    /// One stack frame.
    public struct Frame: Codable, Sendable, Hashable {
        public var pc: Address
        /// Index into `images`, when the address is inside a known image.
        public var image: Int?
        /// `pc` minus the image's load bias: the address a symbolizer wants.
        public var offset: Address?
        /// Whether `pc` is a return address (the instruction after a call)
        /// rather than the instruction that was executing. Absent, the
        /// frame's position decides (`isReturnAddress(at:)`); writers say it
        /// on frame 0 of stacks taken by calling code (malloc shim, C++
        /// throw hooks, `getcontext`), whose frame 0 is a return address too.
        public var returnAddress: Bool?
        /// True for the C library's signal-return trampoline: a signal
        /// handler was called here (the frames above it are the handler's).
        public var signalFrame: Bool?
        /// Filled in by the symbolicator, never by the agent.
        public var symbol: Symbol?

        /// True when `pc` is a return address, for the frame at `position`
        /// in its stack: `returnAddress` when the report says, else false for
        /// frame 0 (the interrupted instruction of a signal context, the
        /// meaning reports had before the field existed) and true for every
        /// later frame. A symbolizer looks a return address up one byte
        /// earlier, inside the call, to get the call's line and inlining.
        public func isReturnAddress(at position: Int) -> Bool {
            returnAddress ?? (position > 0)
        }
    }

    /// What a frame resolves to.
    public struct Symbol: Codable, Sendable, Hashable {
        /// Demangled function name.
        public var function: String
        public var file: String?
        public var line: Int?
        public var column: Int?
        /// Frames inlined into this one, innermost first, when known.
        public var inlined: [Symbol]?
        /// The perf map file (`/tmp/perf-<pid>.map`) that named this frame,
        /// for JIT code no image holds; nil for names from an image.
        public var perfMap: String?
    }

    /// A loaded executable or shared object.
    public struct Image: Codable, Sendable, Hashable {
        public var path: String
        public var base: Address
        public var size: UInt64
        public var loadBias: Address?
        /// GNU build-id, hex.
        public var buildId: String?
    }

    /// Written when the crash handler faulted while writing the first report.
    public struct Recrash: Codable, Sendable {
        /// What the handler was doing when it faulted.
        public var stage: String
        /// The fault inside the handler.
        public var signal: SignalInfo
        public var firstReportId: String?
        /// Bytes the first attempt had written.
        public var partialBytes: Int?
        /// The first attempt's JSON text, possibly cut short.
        public var partialReport: String?
    }

    /// How the report was taken.
    public struct Capture: Codable, Sendable, Hashable {
        /// `libunwind` or `frame_pointer`.
        public var unwinder: String?
        /// Why the stacks were taken by frame pointers although libunwind
        /// is loaded (`another thread is inside dl_iterate_phdr`), if so.
        public var unwinderReason: String?
        /// Time from entering the handler to the report being complete.
        public var durationNs: UInt64?
    }
}

extension Report {
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// JSON keys `Report` models itself (snake_case as in the file).
    static let modeledKeys: Set<String> = [
        "schema", "schema_version", "id", "kind", "detector", "time", "time_unix_ms", "time_unix_ns", "process",
        "signal", "crashed_thread", "threads", "images", "stderr_tail", "swift_fatal_error",
        "recrash", "capture", "user", "signature", "sections",
    ]

    private enum Keys: String, CodingKey {
        case schema, schemaVersion, id, kind, detector, time, timeUnixMs, timeUnixNs, process, signal
        case crashedThread, threads, images, stderrTail, swiftFatalError, recrash, capture, user, signature
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        schema = try c.decode(String.self, forKey: .schema)
        schemaVersion = try c.decode(Int.self, forKey: .schemaVersion)
        id = try c.decode(String.self, forKey: .id)
        kind = try c.decode(String.self, forKey: .kind)
        detector = try c.decodeIfPresent(String.self, forKey: .detector) ?? kind
        time = try c.decode(String.self, forKey: .time)
        timeUnixMs = try c.decode(UInt64.self, forKey: .timeUnixMs)
        timeUnixNs = try c.decodeIfPresent(UInt64.self, forKey: .timeUnixNs)
        process = try c.decode(ProcessInfo.self, forKey: .process)
        signal = try c.decodeIfPresent(SignalInfo.self, forKey: .signal)
        crashedThread = try c.decodeIfPresent(ThreadInfo.self, forKey: .crashedThread)
        threads = try c.decodeIfPresent([ThreadInfo].self, forKey: .threads)
        images = try c.decodeIfPresent([Image].self, forKey: .images)
        stderrTail = try c.decodeIfPresent(String.self, forKey: .stderrTail)
        swiftFatalError = try c.decodeIfPresent(String.self, forKey: .swiftFatalError)
        recrash = try c.decodeIfPresent(Recrash.self, forKey: .recrash)
        capture = try c.decodeIfPresent(Capture.self, forKey: .capture)
        user = try c.decodeIfPresent([String: JSONValue].self, forKey: .user)
        signature = try c.decodeIfPresent(ReportSignature.self, forKey: .signature)
        // The decoder converts keys from snake_case; AnyKey sees converted
        // names, so compare against the converted forms of modeled keys.
        let raw = try decoder.container(keyedBy: AnyKey.self)
        let modeledCamel = Set(Report.modeledKeys.map(Report.camelCase))
        var rest: [String: JSONValue] = [:]
        for key in raw.allKeys where !modeledCamel.contains(key.stringValue) {
            rest[Report.snakeCase(key.stringValue)] = try raw.decode(JSONValue.self, forKey: key)
        }
        sections = rest
        if let (path, why) = SectionIntegers.firstProblem(in: rest) {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: [AnyKey(stringValue: path)], debugDescription: "field \(path): \(why)"))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(schema, forKey: .schema)
        try c.encode(schemaVersion, forKey: .schemaVersion)
        try c.encode(id, forKey: .id)
        try c.encode(kind, forKey: .kind)
        try c.encode(detector, forKey: .detector)
        try c.encode(time, forKey: .time)
        try c.encode(timeUnixMs, forKey: .timeUnixMs)
        try c.encodeIfPresent(timeUnixNs, forKey: .timeUnixNs)
        try c.encode(process, forKey: .process)
        try c.encodeIfPresent(signal, forKey: .signal)
        try c.encodeIfPresent(crashedThread, forKey: .crashedThread)
        try c.encodeIfPresent(threads, forKey: .threads)
        try c.encodeIfPresent(images, forKey: .images)
        try c.encodeIfPresent(stderrTail, forKey: .stderrTail)
        try c.encodeIfPresent(swiftFatalError, forKey: .swiftFatalError)
        try c.encodeIfPresent(recrash, forKey: .recrash)
        try c.encodeIfPresent(capture, forKey: .capture)
        try c.encodeIfPresent(user, forKey: .user)
        try c.encodeIfPresent(signature, forKey: .signature)
        var raw = encoder.container(keyedBy: AnyKey.self)
        for (k, v) in sections {
            // The encoder converts to snake_case; pass the camel form so the
            // file gets the original key back.
            try raw.encode(v, forKey: AnyKey(stringValue: Report.camelCase(k)))
        }
    }

    static func camelCase(_ s: String) -> String {
        let parts = s.split(separator: "_", omittingEmptySubsequences: false)
        guard let first = parts.first else { return s }
        return String(first) + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    static func snakeCase(_ s: String) -> String {
        var out = ""
        for ch in s {
            if ch.isUppercase { out += "_" + ch.lowercased() } else { out.append(ch) }
        }
        return out
    }

    /// All frames of all threads, crashed thread first.
    public var allThreads: [ThreadInfo] {
        (crashedThread.map { [$0] } ?? []) + (threads ?? [])
    }

    /// The image a frame points into.
    public func image(of frame: Frame) -> Image? {
        guard let i = frame.image, let images, images.indices.contains(i) else { return nil }
        return images[i]
    }
}
