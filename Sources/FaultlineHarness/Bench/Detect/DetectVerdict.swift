/// What one tool said about one victim case, read from its own output:
/// the class it named (in Faultline's class names) and the functions of the
/// first stack it printed for that error.
public struct DetectVerdict: Sendable, Equatable, Codable {
    /// Faultline's class name for what the tool reported (`double_free`,
    /// `heap_buffer_overflow`, `use_after_free`, `leak`, ...), nil when it reported nothing.
    public var className: String?
    /// Function names of the error's stack, innermost first.
    public var frames: [String]

    /// A verdict.
    public init(className: String?, frames: [String] = []) {
        self.className = className
        self.frames = frames
    }

    /// True when the tool named an error.
    public var caught: Bool { className != nil }

    /// True when `culprit` is a substring of one of the frames.
    public func names(culprit: String) -> Bool { frames.contains { $0.contains(culprit) } }
}
