import Foundation

/// How `ReportFormatter` shows an uncaught C++ exception's stacks: `thrown
/// by thread 7 here:` over the throw stack, `rethrown here:` over the last
/// `throw;`, and each nested exception as `nested std::runtime_error: "…",
/// thrown by thread 7 here:` over its own — the way sentry-native and
/// AddressSanitizer title their stacks, not as a `key: value` tree. The
/// `exception` fields `ExceptionHeadline` and these titles say are not
/// printed again; the rest (the unwinder, the frame limit, a throw that was
/// not recorded) still is.
enum ExceptionText {
    /// The stacks, each after an empty line.
    static func body(_ r: Report, stacks: StackFormatter) -> [String] {
        guard r.kind == "cxx_exception", let e = r.sections["exception"] else { return [] }
        let images = r.images ?? []
        func stack(_ value: JSONValue?) -> [Report.Frame]? { SectionFrames.stack(value).map { hookNamedPlainly($0, images) } }
        var out = StackTitle.lines("thrown\(StackTitle.by(e["throw_tid"])) here:", stack(r.sections["throw_stack"]), stacks)
        out += StackTitle.lines("rethrown here:", stack(r.sections["rethrow_stack"]), stacks)
        for inner in e["nested"]?.arrayValue ?? [] {
            let title = "nested \(ExceptionHeadline.describe(inner, unknownType: "exception of unknown type")), thrown\(StackTitle.by(inner["throw_tid"])) here:"
            out += StackTitle.lines(title, stack(inner["throw_stack"]), stacks)
        }
        return out
    }

    /// `frames` with frame 0, when it is the agent's own `__cxa_throw` hook
    /// (where the stack was taken), shown by its name alone, as
    /// AddressSanitizer shows its interceptor frame: the hook's inlined
    /// helpers and source lines are Faultline's, not the program's. The
    /// JSON keeps them; a frame the agent crashed in is not touched.
    private static func hookNamedPlainly(_ frames: [Report.Frame], _ images: [Report.Image]) -> [Report.Frame] {
        guard var first = frames.first, let i = first.image, images.indices.contains(i),
              (images[i].path as NSString).lastPathComponent == AgentInjection.agentLibrary,
              let symbol = first.symbol
        else { return frames }
        first.symbol = symbol.nameOnly
        return [first] + frames.dropFirst()
    }

    /// The sections to print otherwise: nil to leave one out, an object to
    /// print only what nothing above shows.
    static func sectionOverrides(_ r: Report) -> [String: JSONValue?] {
        guard r.kind == "cxx_exception", case .object(let e)? = r.sections["exception"] else { return [:] }
        var out: [String: JSONValue?] = [:]
        let hidden: JSONValue? = nil
        for key in ["throw_stack", "rethrow_stack"] where SectionFrames.stack(r.sections[key]) != nil { out[key] = hidden }
        let demangled = e["demangled"]?.boolValue == true
        var left = rest(e, stackShown: SectionFrames.stack(r.sections["throw_stack"]) != nil, demangled: demangled)
        left.removeValue(forKey: "demangled")
        left.removeValue(forKey: "rethrown")
        left.removeValue(forKey: "no_active_exception")
        if let nested = e["nested"]?.arrayValue {
            let inner = nested.map { n -> JSONValue in
                guard case .object(let o) = n else { return n }
                return .object(rest(o, stackShown: SectionFrames.stack(o["throw_stack"]) != nil, demangled: demangled))
            }
            let empty = inner.allSatisfy { if case .object(let o) = $0 { return o.isEmpty }; return false }
            if empty { left.removeValue(forKey: "nested") } else { left["nested"] = .array(inner) }
        }
        out["exception"] = left.isEmpty ? hidden : .object(left)
        return out
    }

    /// An exception's fields less those its title shows: type and message,
    /// the thread, the mangled name when demangling worked (`demangled`,
    /// the report's flag for all its names), and the stack with its found
    /// flag when it was shown.
    private static func rest(_ o: [String: JSONValue], stackShown: Bool, demangled: Bool) -> [String: JSONValue] {
        var left = o
        for key in ["type", "message", "throw_tid"] { left.removeValue(forKey: key) }
        if demangled { left.removeValue(forKey: "type_mangled") }
        if stackShown {
            left.removeValue(forKey: "throw_stack")
            if o["throw_stack_found"]?.boolValue == true { left.removeValue(forKey: "throw_stack_found") }
        }
        return left
    }
}
