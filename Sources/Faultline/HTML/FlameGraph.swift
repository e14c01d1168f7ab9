/// A flame graph as inline SVG: the call tree root at the top, each node a
/// box as wide as the samples through it, labelled with its function and
/// file:line (cut to fit; the whole name and the count are its tooltip),
/// the program's frames warm, libraries' cool, the culprit stack red.
struct FlameGraph {
    /// Width of the drawing and height of a row, in pixels.
    static let width = 1100.0, rowHeight = 18.0
    /// Average advance of a character of the label font (11 px monospace).
    static let charWidth = 6.7
    /// Boxes narrower than this are not drawn (their callees are narrower):
    /// a box under a pixel cannot be seen or pointed at, and each costs
    /// the browser four elements.
    static let minimumWidth = 1.0

    let tree: FlameTree
    let text: FrameText
    /// The culprit stack, innermost first (empty: none highlighted).
    let culprit: [Report.Frame]

    /// The SVG element.
    func render() -> String {
        let total = tree.total
        guard total > 0 else { return "" }
        let onPath = tree.onPath(culprit)
        let maxDepth = tree.nodes.map(\.depth).max() ?? 0
        let height = Double(maxDepth + 1) * Self.rowHeight
        var out = "<svg class=\"flame\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(Self.width))\" height=\"\(Int(height))\" "
            + "viewBox=\"0 0 \(Int(Self.width)) \(Int(height))\" role=\"img\">\n"
        var next = [Double](repeating: 0, count: maxDepth + 2)
        var hidden = Int.max
        for (i, n) in tree.nodes.enumerated() {
            if n.depth <= hidden { hidden = .max }
            let x = next[n.depth]
            let w = n.count / total * Self.width
            next[n.depth] = x + w
            next[n.depth + 1] = x
            guard hidden == .max, w >= Self.minimumWidth else { hidden = min(hidden, n.depth); continue }
            let y = Double(n.depth) * Self.rowHeight
            let app = text.isProgram(n.frame)
            let cls = "frame " + (app ? "app" : "lib") + (onPath[i] ? " culprit" : "")
            let share = n.count / total * 100
            let tip = text.full(n.frame) + "\n\(Self.count(n.count)) of \(Self.count(total)) samples (\(HTMLText.number(share))%)"
                + (onPath[i] ? ", culprit stack" : "")
            out += "<g class=\"\(cls)\"><title>\(HTMLText.escaped(tip))</title>"
            out += "<rect x=\"\(HTMLText.number(x))\" y=\"\(HTMLText.number(y))\" width=\"\(HTMLText.number(max(w - 0.5, 0.5)))\" height=\"\(Int(Self.rowHeight - 1))\" fill=\"\(color(n.frame, app: app, culprit: onPath[i]))\"/>"
            let fits = Int((w - 6) / Self.charWidth)
            if fits >= 3 {
                let label = HTMLText.clipped(text.short(n.frame), to: fits)
                out += "<text x=\"\(HTMLText.number(x + 3))\" y=\"\(HTMLText.number(y + Self.rowHeight - 5))\">\(HTMLText.escaped(label))</text>"
            }
            out += "</g>\n"
        }
        return out + "</svg>\n"
    }

    /// Warm for the program, cool for libraries, red for the culprit; the
    /// shade from the function's name, so one function looks the same
    /// everywhere in the graph.
    private func color(_ f: Report.Frame, app: Bool, culprit: Bool) -> String {
        var h: UInt32 = 2166136261
        for b in text.function(f).utf8 { h = (h ^ UInt32(b)) &* 16777619 }
        let shade = Int(h % 40)
        if culprit { return "hsl(\(2 + shade / 8), 82%, \(52 + shade / 5)%)" }
        if app { return "hsl(\(28 + shade / 2), 90%, \(60 + shade / 5)%)" }
        return "hsl(\(200 + shade / 2), 35%, \(72 + shade / 5)%)"
    }

    private static func count(_ v: Double) -> String {
        v.rounded() == v ? String(Int64(v)) : HTMLText.number(v)
    }
}
