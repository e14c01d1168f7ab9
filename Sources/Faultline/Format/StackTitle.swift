/// A section's stack printed under a line that says what it is (`freed by
/// thread 7 here:`, `thrown by thread 7 here:`), the way AddressSanitizer
/// and sentry-native title their stacks; shared by the report kinds that
/// print their stacks so (`HeapErrorText`, `ExceptionText`).
enum StackTitle {
    /// ` by thread 7`, or nothing when the thread is not known.
    static func by(_ tid: JSONValue?) -> String {
        tid?.integerValue.map { " by thread \($0)" } ?? ""
    }

    /// An empty line, `title`, then the frames of `value` indented; nothing
    /// when `value` is not a stack.
    static func lines(_ title: String, _ value: JSONValue?, _ stacks: StackFormatter) -> [String] {
        lines(title, SectionFrames.stack(value), stacks)
    }

    /// An empty line, `title`, then `frames` indented; nothing for nil.
    static func lines(_ title: String, _ frames: [Report.Frame]?, _ stacks: StackFormatter) -> [String] {
        guard let frames else { return [] }
        return ["", title] + stacks.lines(frames, indent: "  ")
    }
}
