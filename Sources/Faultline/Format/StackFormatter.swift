import Foundation

/// Formats one stack, innermost first: one line per frame
/// (`#3  0x…  function at file:line:col  (image)`), inlined frames on lines
/// of their own with the same number, and long runs of one function (deep
/// recursion, a stack overflow) collapsed to a count.
struct StackFormatter {
    /// The report's images, which frames refer to by index.
    var images: [Report.Image]
    /// Why frames of some images were left unsymbolicated.
    var warnings: [SymbolicationWarning]
    /// Hex digits shown for addresses.
    var addressDigits: Int
    /// Frames shown at the start of a run before it is collapsed.
    var runHead: Int
    /// Shortest run that is collapsed.
    var runMinimum: Int
    /// Source paths under this directory are shown relative to it.
    var baseDirectory: String?

    /// The lines for a thread's frames, with the agent's gap in a very
    /// deep stack (`framesOmitted` frames left out at `framesOmittedAt`)
    /// said in a line and counted in the numbers of the outer frames.
    func lines(_ thread: Report.ThreadInfo, indent: String) -> [String] {
        guard let omitted = thread.framesOmitted, omitted > 0, let at = thread.framesOmittedAt,
              at >= 0, at <= thread.frames.count
        else { return lines(thread.frames, indent: indent) }
        return lines(Array(thread.frames[..<at]), indent: indent)
            + ["\(indent)… \(omitted) frames not kept by the agent (stack too deep)"]
            + lines(Array(thread.frames[at...]), indent: indent, firstNumber: at + omitted)
    }

    /// The lines for `frames`, each starting with `indent`, numbered from
    /// `firstNumber`.
    func lines(_ frames: [Report.Frame], indent: String, firstNumber: Int = 0) -> [String] {
        let frames = faultlineFramesNamedPlainly(frames)
        var out: [String] = []
        var n = 0
        while n < frames.count {
            var end = n + 1
            let key = runKey(frames[n])
            while end < frames.count && runKey(frames[end]) == key { end += 1 }
            let run = end - n
            if run >= runMinimum {
                for k in n..<(n + runHead) { out += frameLines(frames[k], number: firstNumber + k, indent: indent) }
                out.append("\(indent)… \(run - runHead) more frames of \(displayName(frames[n]))")
            } else {
                for k in n..<end { out += frameLines(frames[k], number: firstNumber + k, indent: indent) }
            }
            n = end
        }
        return out
    }

    /// `frames` with each frame of Faultline's own libraries that lies
    /// outside the innermost run of them shown by its name alone, as
    /// AddressSanitizer shows its thread-start and interceptor frames: the
    /// agent's thread-start trampoline (`run_with_altstack`) under every
    /// thread the program starts, an interposer the program called through.
    /// Their inlined helpers and Faultline's source lines say nothing about
    /// the program. A crash inside Faultline (its frames innermost) keeps
    /// them in full, and the JSON keeps every frame as captured.
    private func faultlineFramesNamedPlainly(_ frames: [Report.Frame]) -> [Report.Frame] {
        guard let outside = frames.firstIndex(where: { !isFaultlines($0) }) else { return frames }
        var out = frames
        for k in outside..<out.count where isFaultlines(out[k]) {
            guard let symbol = out[k].symbol else { continue }
            out[k].symbol = symbol.nameOnly
        }
        return out
    }

    private func isFaultlines(_ f: Report.Frame) -> Bool {
        guard let i = f.image, images.indices.contains(i) else { return false }
        let name = Self.shortName(images[i].path)
        return name == AgentInjection.agentLibrary || name == AgentInjection.shimLibrary
    }

    /// Frames with the same key form a run: the function when known, else
    /// the exact return address.
    private func runKey(_ f: Report.Frame) -> String {
        if let s = f.symbol { return "f:" + s.function }
        return "a:\(f.image ?? -1):\(f.offset?.value ?? f.pc.value)"
    }

    private func displayName(_ f: Report.Frame) -> String {
        if let s = f.symbol { return RustSymbolName.display(s.function) }
        return location(f)
    }

    /// `victim-c + 0x1453`, or `?` outside any image.
    private func location(_ f: Report.Frame) -> String {
        guard let i = f.image, images.indices.contains(i) else { return "?" }
        let name = Self.shortName(images[i].path)
        if let off = f.offset { return "\(name) + \(off)" }
        return name
    }

    func frameLines(_ f: Report.Frame, number: Int, indent: String) -> [String] {
        let num = Self.number(number)
        let pc = hex(f.pc.value)
        let imageName = f.image.flatMap { images.indices.contains($0) ? Self.shortName(images[$0].path) : nil }
        // gdb's words for the kernel's signal frame, whose trampoline has
        // no symbol a symbolizer finds.
        if f.signalFrame == true {
            return ["\(indent)\(num)\(pc)  <signal handler called>" + (imageName.map { "  (\($0))" } ?? "")]
        }
        guard let symbol = f.symbol else {
            var line = "\(indent)\(num)\(pc)  \(location(f))"
            if let w = warningFor(f) { line += "  [\(w.frameNote)]" }
            return [line]
        }
        var out: [String] = []
        for inlined in symbol.inlined ?? [] {
            out.append("\(indent)\(num)\(pc)  [inlined] \(describe(inlined))")
        }
        var line = "\(indent)\(num)\(pc)  \(describe(symbol))"
        // JIT code: named by the runtime's perf map, in no image.
        if symbol.perfMap != nil { line += " [JIT]  (perf map)" }
        if let imageName { line += "  (\(imageName))" }
        out.append(line)
        return out
    }

    /// `function at file:line:column`, a Rust function named as Rust's
    /// backtrace prints it (`RustSymbolName`).
    func describe(_ s: Report.Symbol) -> String {
        let function = RustSymbolName.display(s.function)
        guard let file = s.file else { return function }
        var text = "\(function) at \(shortPath(file))"
        if let line = s.line { text += ":\(line)" }
        if let column = s.column { text += ":\(column)" }
        return text
    }

    private func warningFor(_ f: Report.Frame) -> SymbolicationWarning? {
        guard let i = f.image else { return nil }
        return warnings.first { $0.imageIndex == i }
    }

    /// A source path relative to the base directory when under it.
    func shortPath(_ path: String) -> String {
        guard let base = baseDirectory, !base.isEmpty else { return path }
        let prefix = base.hasSuffix("/") ? base : base + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    /// `0x` and `addressDigits` hex digits.
    func hex(_ v: UInt64) -> String {
        let digits = String(v, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, addressDigits - digits.count)) + digits
    }

    /// `#3  `: the frame number and at least one space, 4 columns wide.
    static func number(_ n: Int) -> String {
        let text = "#\(n)"
        return text + String(repeating: " ", count: max(1, 4 - text.count))
    }

    /// The file name of an image path (`libc.so.6`).
    static func shortName(_ path: String) -> String {
        path.hasPrefix("[") ? path : (path as NSString).lastPathComponent
    }
}

extension Report.Symbol {
    /// The function's name alone: no source line, no inlined frames (a
    /// Faultline frame shown as AddressSanitizer shows its own).
    var nameOnly: Report.Symbol { Report.Symbol(function: function, file: nil, line: nil, column: nil, inlined: nil) }
}
