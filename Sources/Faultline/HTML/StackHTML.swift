/// A stack as HTML, collapsed to the program's own frames: those frames
/// with their numbers, each run of library frames between them as one
/// line naming the libraries, and every frame behind a `<details>` that
/// expands without a script. A stack with no program frame is shown whole.
/// Frames are lines of text in a `<pre>`, the program's function names
/// the only elements in them: a leak page holds hundreds of stacks, and
/// the browser's time follows the number of elements.
struct StackHTML {
    /// Names frames and tells the program's from the libraries'.
    let text: FrameText

    /// The stack's HTML: `frames` innermost first, numbered from
    /// `firstNumber`.
    func render(_ frames: [Report.Frame], firstNumber: Int = 0, omitted: (count: Int, at: Int)? = nil) -> String {
        guard !frames.isEmpty else { return "<p class=\"none\">(no frames)</p>\n" }
        let numbered = frames.enumerated().map { i, f in (number(i, firstNumber, omitted), f, text.isProgram(f)) }
        let programCount = numbered.filter(\.2).count
        if programCount == 0 || programCount == frames.count {
            return "<div class=\"stack\">\n<pre class=\"frames\">" + numbered.map { line($0.0, $0.1, marked: $0.2) }.joined() + "</pre>\n</div>\n"
        }
        var collapsed = "<pre class=\"frames program\">"
        var gap: [String] = []
        func flushGap() {
            guard !gap.isEmpty else { return }
            var names: [String] = []
            for g in gap where !names.contains(g) { names.append(g) }
            collapsed += "     … \(gap.count) frame\(gap.count == 1 ? "" : "s") in \(HTMLText.escaped(names.joined(separator: ", ")))\n"
            gap = []
        }
        for (n, f, program) in numbered {
            if program {
                flushGap()
                collapsed += line(n, f, marked: true)
            } else {
                gap.append(text.imageName(f) ?? "unknown code")
            }
        }
        flushGap()
        return "<div class=\"stack\">\n" + collapsed + "</pre>\n"
            + "<details class=\"all\"><summary>all \(frames.count) frames</summary><pre class=\"frames\">"
            + numbered.map { line($0.0, $0.1, marked: false) }.joined() + "</pre></details>\n</div>\n"
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

    /// `#3   make_list  /src/main.c:152  (victim-leak)`, the function in a
    /// `<span class="fn">` when `marked`.
    private func line(_ n: Int, _ f: Report.Frame, marked: Bool) -> String {
        let number = "#\(n)"
        let function = HTMLText.escaped(text.function(f))
        var line = number + String(repeating: " ", count: max(1, 5 - number.count))
            + (marked ? "<span class=\"fn\">\(function)</span>" : function)
        if let s = f.symbol, let file = s.file {
            line += "  " + HTMLText.escaped(file) + (s.line.map { ":\($0)" } ?? "")
        }
        if let image = text.imageName(f) { line += "  (\(HTMLText.escaped(image)))" }
        if let inlined = f.symbol?.inlined, !inlined.isEmpty {
            line += "  inlined: " + HTMLText.escaped(inlined.map { RustSymbolName.display($0.function) }.joined(separator: " ← "))
        }
        return line + "\n"
    }
}
