import Foundation

/// Who waits for whom, as inline SVG: threads as boxes, the locks they
/// wait for as ellipses, an arrow from a thread to the lock it waits for
/// and from a lock to the thread that holds it (a join goes from thread
/// to thread). A deadlock's cycle is drawn round a circle, a chain left
/// to right.
struct WaitGraph {
    /// A box or an ellipse.
    struct Node {
        var id: String
        var label: String
        var detail: String
        var isLock: Bool
        var gone = false
    }
    /// An arrow.
    struct Edge {
        var from: Int, to: Int
        var label: String
    }

    var nodes: [Node] = []
    var edges: [Edge] = []
    /// True to lay the nodes out round a circle.
    var cycle = false

    /// The graph of a deadlock section (`cycle`, else `chain`), or of a
    /// hang whose thread waits on a lock (`hang.thread.waits_for`).
    init?(_ r: Report) {
        if let d = r.sections["deadlock"] {
            let cycle = d["cycle"]?.arrayValue ?? [], chain = d["chain"]?.arrayValue ?? []
            self.cycle = !cycle.isEmpty
            for t in chain + cycle { add(t) }
        } else if let t = r.sections["hang"]?["thread"], t["waits_for"] != nil {
            var entry = t
            if case .object(var o) = t, let thread = r.crashedThread {
                o["tid"] = .number(Double(thread.tid))
                if let name = thread.name { o["name"] = .string(name) }
                if thread.main == true { o["main"] = .bool(true) }
                entry = .object(o)
            }
            add(entry)
        }
        if edges.isEmpty { return nil }
    }

    private mutating func node(_ id: String, make: () -> Node) -> Int {
        if let i = nodes.firstIndex(where: { $0.id == id }) { return i }
        nodes.append(make())
        return nodes.count - 1
    }

    private mutating func thread(tid: Int64?, name: String?, main: Bool) -> Int {
        let id = "t\(tid ?? -1)"
        let i = node(id) {
            Node(id: id, label: name.map { "\"\($0)\"" } ?? "thread", detail: (tid.map { "tid \($0)" } ?? "tid ?") + (main ? ", main" : ""), isLock: false)
        }
        if let name, nodes[i].label == "thread" { nodes[i].label = "\"\(name)\"" }
        if main, !nodes[i].detail.hasSuffix("main") { nodes[i].detail += ", main" }
        return i
    }

    private mutating func add(_ t: JSONValue) {
        let waiter = thread(tid: t["tid"]?.integerValue, name: t["name"]?.stringValue, main: t["main"]?.boolValue == true)
        guard let w = t["waits_for"] else { return }
        let kind = w["kind"]?.stringValue ?? "futex"
        let ownerTid = w["owner_tid"]?.integerValue
        func owner() -> Int? {
            guard let ownerTid else { return nil }
            let o = thread(tid: ownerTid, name: w["owner_name"]?.stringValue, main: false)
            if w["owner_alive"]?.boolValue == false { nodes[o].gone = true; nodes[o].detail = "tid \(ownerTid), exited" }
            return o
        }
        if kind == "join" {
            if let o = owner() { edges.append(Edge(from: waiter, to: o, label: "joins")) }
            return
        }
        let address = w["address"]?.stringValue ?? "?"
        let lock = node("l\(kind)\(address)") {
            Node(id: "l\(kind)\(address)", label: kind.replacingOccurrences(of: "_", with: " "),
                 detail: address + (w["mutex_type"]?.stringValue.map { " (\($0))" } ?? ""), isLock: true)
        }
        if !edges.contains(where: { $0.from == waiter && $0.to == lock }) {
            edges.append(Edge(from: waiter, to: lock, label: w["timed"]?.boolValue == true ? "waits for (timed)" : "waits for"))
        }
        if let o = owner(), !edges.contains(where: { $0.from == lock && $0.to == o }) {
            edges.append(Edge(from: lock, to: o, label: "held by"))
        }
    }

    static let boxWidth = 190.0, boxHeight = 40.0

    /// The SVG element; `id` makes its arrowhead's id unique in the page.
    func render(id: String) -> String {
        let n = nodes.count
        var centers: [(Double, Double)] = []
        let width: Double, height: Double
        if cycle && n > 2 {
            let radius = max(120, Double(n) * Self.boxWidth / (2 * .pi) * 1.1)
            width = 2 * radius + Self.boxWidth + 40
            height = 2 * radius + Self.boxHeight + 40
            for k in 0..<n {
                let a = -Double.pi / 2 + 2 * .pi * Double(k) / Double(n)
                centers.append((width / 2 + radius * cos(a), height / 2 + radius * sin(a)))
            }
        } else {
            let step = Self.boxWidth + 70
            width = Double(n) * step + 10
            height = Self.boxHeight + 60
            for k in 0..<n { centers.append((Self.boxWidth / 2 + 10 + Double(k) * step, height / 2)) }
        }
        let marker = "arrow-\(id)"
        var out = "<svg class=\"waits\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\">\n"
        out += "<defs><marker id=\"\(marker)\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\"><path d=\"M0 0L10 5L0 10z\" fill=\"#333\"/></marker></defs>\n"
        for e in edges {
            let (a, b) = (centers[e.from], centers[e.to])
            let (x1, y1) = Self.border(from: a, toward: b, lock: nodes[e.from].isLock)
            let (x2, y2) = Self.border(from: b, toward: a, lock: nodes[e.to].isLock)
            let cls = e.label == "held by" ? "edge holds" : "edge waits"
            out += "<g class=\"\(cls)\"><line x1=\"\(HTMLText.number(x1))\" y1=\"\(HTMLText.number(y1))\" x2=\"\(HTMLText.number(x2))\" y2=\"\(HTMLText.number(y2))\" marker-end=\"url(#\(marker))\"/>"
            out += "<text x=\"\(HTMLText.number((x1 + x2) / 2))\" y=\"\(HTMLText.number((y1 + y2) / 2 - 4))\" text-anchor=\"middle\">\(HTMLText.escaped(e.label))</text></g>\n"
        }
        for (k, node) in nodes.enumerated() {
            let (x, y) = centers[k]
            let cls = (node.isLock ? "lock" : "thread") + (node.gone ? " gone" : "")
            out += "<g class=\"\(cls)\"><title>\(HTMLText.escaped(node.label + ", " + node.detail))</title>"
            if node.isLock {
                out += "<ellipse cx=\"\(HTMLText.number(x))\" cy=\"\(HTMLText.number(y))\" rx=\"\(HTMLText.number(Self.boxWidth / 2))\" ry=\"\(HTMLText.number(Self.boxHeight / 2))\"/>"
            } else {
                out += "<rect x=\"\(HTMLText.number(x - Self.boxWidth / 2))\" y=\"\(HTMLText.number(y - Self.boxHeight / 2))\" width=\"\(Int(Self.boxWidth))\" height=\"\(Int(Self.boxHeight))\" rx=\"6\"/>"
            }
            out += "<text x=\"\(HTMLText.number(x))\" y=\"\(HTMLText.number(y - 3))\" text-anchor=\"middle\">\(HTMLText.escaped(HTMLText.clipped(node.label, to: 26)))</text>"
            out += "<text class=\"detail\" x=\"\(HTMLText.number(x))\" y=\"\(HTMLText.number(y + 12))\" text-anchor=\"middle\">\(HTMLText.escaped(HTMLText.clipped(node.detail, to: 30)))</text></g>\n"
        }
        return out + "</svg>\n"
    }

    /// Where the line from `c` toward `o` leaves the node at `c`.
    private static func border(from c: (Double, Double), toward o: (Double, Double), lock: Bool) -> (Double, Double) {
        let dx = o.0 - c.0, dy = o.1 - c.1
        let len = (dx * dx + dy * dy).squareRoot()
        guard len > 0 else { return c }
        let hw = boxWidth / 2, hh = boxHeight / 2
        let t: Double
        if lock {
            t = 1 / ((dx * dx) / (hw * hw) + (dy * dy) / (hh * hh)).squareRoot()
        } else {
            t = min(dx == 0 ? .infinity : hw / abs(dx), dy == 0 ? .infinity : hh / abs(dy))
        }
        return (c.0 + dx * t, c.1 + dy * t)
    }
}
