/// A stack as HTML, collapsed to the program's own frames: those frames
/// with their numbers, each run of library frames between them as one
/// line naming the libraries, and every frame behind a `<details>` that
/// expands without a script. A stack with no program frame is shown whole.
struct StackHTML {
    /// Names frames and tells the program's from the libraries'.
    let text: FrameText

    /// The stack's HTML: `frames` innermost first, numbered from
    /// `firstNumber`.
    func render(_ frames: [Report.Frame], firstNumber: Int = 0, omitted: (count: Int, at: Int)? = nil) -> String {
        guard !frames.isEmpty else { return "<p class=\"none\">(no frames)</p>\n" }
        let numbered = frames.enumerated().map { i, f in (number(i, firstNumber, omitted), f) }
        let program = numbered.filter { text.isProgram($0.1) }
        var out = "<div class=\"stack\">\n"
        if program.isEmpty || program.count == frames.count {
            out += list(numbered, className: "frames")
            return out + "</div>\n"
        }
        var collapsed = "<ol class=\"frames program\">\n"
        var gap: [String] = []
        func flushGap() {
            guard !gap.isEmpty else { return }
            var names: [String] = []
            for g in gap where !names.contains(g) { names.append(g) }
            collapsed += "<li class=\"gap\">… \(gap.count) frame\(gap.count == 1 ? "" : "s") in \(HTMLText.escaped(names.joined(separator: ", ")))</li>\n"
            gap = []
        }
        for (n, f) in numbered {
            if text.isProgram(f) {
                flushGap()
                collapsed += item(n, f)
            } else {
                gap.append(text.imageName(f) ?? "unknown code")
            }
        }
        flushGap()
        out += collapsed + "</ol>\n"
        out += "<details class=\"all\"><summary>all \(frames.count) frames</summary>\n" + list(numbered, className: "frames") + "</details>\n"
        return out + "</div>\n"
    }

    /// A thread's stack, with the agent's gap in a very deep stack counted
    /// in the numbers of the outer frames.
    func render(_ thread: Report.ThreadInfo) -> String {
        if thread.captured == false {
            return "<p class=\"none\">(not sampled: \(HTMLText.escaped(thread.captureSkipped ?? "did not answer the stack request in time")))</p>\n"
        }
        if let n = thread.framesOmitted, n > 0, let at = thread.framesOmittedAt, at >= 0, at <= thread.frames.count {
            return render(thread.frames, omitted: (n, at))
        }
        return render(thread.frames)
    }

    private func number(_ i: Int, _ first: Int, _ omitted: (count: Int, at: Int)?) -> Int {
        guard let omitted, i >= omitted.at else { return first + i }
        return first + i + omitted.count
    }

    private func list(_ numbered: [(Int, Report.Frame)], className: String) -> String {
        var out = "<ol class=\"\(className)\">\n"
        for (n, f) in numbered { out += item(n, f) }
        return out + "</ol>\n"
    }

    private func item(_ n: Int, _ f: Report.Frame) -> String {
        let cls = text.isProgram(f) ? "frame app" : "frame lib"
        var line = "<li class=\"\(cls)\"><span class=\"n\">#\(n)</span> <span class=\"fn\">\(HTMLText.escaped(text.function(f)))</span>"
        if let s = f.symbol, let file = s.file {
            var at = file
            if let l = s.line { at += ":\(l)" }
            line += " <span class=\"at\">\(HTMLText.escaped(at))</span>"
        }
        if let image = text.imageName(f) { line += " <span class=\"img\">(\(HTMLText.escaped(image)))</span>" }
        if let inlined = f.symbol?.inlined, !inlined.isEmpty {
            line += " <span class=\"inl\">inlined: \(HTMLText.escaped(inlined.map { RustSymbolName.display($0.function) }.joined(separator: " ← ")))</span>"
        }
        return line + "</li>\n"
    }
}
