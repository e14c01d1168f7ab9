/// Stacks merged root first into a call tree, in pre-order: the shape a
/// flame graph is drawn from. A hang report holds one already
/// (`hang.call_tree`: `depth`, `count`, `self` and the frame of each
/// node); other stacks are merged here.
struct FlameTree {
    /// One node: a frame reached by `count` samples along one path.
    struct Node {
        var depth: Int
        var count: Double
        var frame: Report.Frame
    }

    /// Every node, parents before children, siblings in order.
    var nodes: [Node]

    /// Samples through the roots.
    var total: Double { nodes.filter { $0.depth == 0 }.reduce(0) { $0 + $1.count } }

    /// The tree a `call_tree` array holds; nil when it is not one (a node
    /// without a frame, a depth that skips a level).
    init?(callTree value: JSONValue?) {
        guard let items = value?.arrayValue, !items.isEmpty else { return nil }
        var nodes: [Node] = []
        nodes.reserveCapacity(items.count)
        var previousDepth = -1
        for item in items {
            guard case .object(let o) = item, let frame = SectionFrames.frame(o),
                  let depth = o["depth"]?.integerValue, let count = o["count"]?.numberValue,
                  depth >= 0, depth <= previousDepth + 1, count > 0 else { return nil }
            nodes.append(Node(depth: Int(depth), count: count, frame: frame))
            previousDepth = Int(depth)
        }
        self.nodes = nodes
    }

    /// The tree of `stacks` (each innermost first, as reports hold them,
    /// with its weight), merged from the outermost frame; frames are the
    /// same node when they are at the same place in the same image.
    init(stacks: [(frames: [Report.Frame], weight: Double)]) {
        final class Building {
            let frame: Report.Frame
            var count: Double = 0
            var children: [Building] = []
            init(_ frame: Report.Frame) { self.frame = frame }
        }
        var roots: [Building] = []
        for (frames, weight) in stacks where !frames.isEmpty && weight > 0 {
            var level = roots
            var parent: Building?
            for f in frames.reversed() {
                let node: Building
                if let found = level.first(where: { FlameTree.samePlace($0.frame, f) }) {
                    node = found
                } else {
                    node = Building(f)
                    if let parent { parent.children.append(node) } else { roots.append(node) }
                }
                node.count += weight
                parent = node
                level = node.children
            }
        }
        var out: [Node] = []
        func walk(_ b: Building, _ depth: Int) {
            out.append(Node(depth: depth, count: b.count, frame: b.frame))
            for c in b.children { walk(c, depth + 1) }
        }
        for r in roots { walk(r, 0) }
        nodes = out
    }

    /// The tree with the children of each node that are the same function
    /// merged (their callees merged in turn), as flame graphs merge by
    /// name: the call tree keeps each return address apart, so one loop
    /// sampled at three instructions was three boxes. Unsymbolicated
    /// frames merge when at the same address. A merged node keeps the
    /// frame of its heaviest part, and the count of all.
    func mergedByFunction() -> FlameTree {
        final class Building {
            var frame: Report.Frame
            var count: Double
            var heaviest: Double
            var children: [Building] = []
            init(_ frame: Report.Frame, _ count: Double) { self.frame = frame; self.count = count; heaviest = count }
        }
        func key(_ f: Report.Frame) -> String {
            if let name = f.symbol?.function { return "f:" + name }
            return "a:\(f.image ?? -1):\(f.offset?.value ?? f.pc.value)"
        }
        func merge(_ into: Building, _ other: Building) {
            into.count += other.count
            if other.heaviest > into.heaviest { into.frame = other.frame; into.heaviest = other.heaviest }
            for c in other.children { add(c, to: &into.children) }
        }
        func add(_ node: Building, to list: inout [Building]) {
            if let same = list.first(where: { key($0.frame) == key(node.frame) }) { merge(same, node) } else { list.append(node) }
        }
        var roots: [Building] = []
        var open: [Building] = []
        for n in nodes {
            let b = Building(n.frame, n.count)
            open.removeLast(max(0, open.count - n.depth))
            if let parent = open.last { add(b, to: &parent.children) } else { add(b, to: &roots) }
            // A node merged into an earlier sibling: its callees go there.
            let list = open.last?.children ?? roots
            open.append(list.first { key($0.frame) == key(b.frame) } ?? b)
        }
        var out = FlameTree(stacks: [])
        func walk(_ b: Building, _ depth: Int) {
            out.nodes.append(Node(depth: depth, count: b.count, frame: b.frame))
            for c in b.children.sorted(by: { $0.count > $1.count }) { walk(c, depth + 1) }
        }
        for r in roots.sorted(by: { $0.count > $1.count }) { walk(r, 0) }
        return out
    }

    /// True when two frames are at the same code address.
    static func samePlace(_ a: Report.Frame, _ b: Report.Frame) -> Bool {
        if let ia = a.image, let ib = b.image, let oa = a.offset, let ob = b.offset { return ia == ib && oa == ob }
        return a.pc == b.pc
    }

    /// For each node, whether it lies on `culprit` (innermost first): the
    /// path from a root whose frames are the culprit's, outermost first,
    /// frames compared by function (nodes are merged by function), else by
    /// address; the innermost unsymbolicated culprit frame is the
    /// interrupted instruction, which varies between samples, so there
    /// the image is enough.
    func onPath(_ culprit: [Report.Frame]) -> [Bool] {
        let path = Array(culprit.reversed())
        var marks = [Bool](repeating: false, count: nodes.count)
        var open = [Bool]()
        for (i, n) in nodes.enumerated() {
            open.removeLast(max(0, open.count - n.depth))
            let parentOnPath = n.depth == 0 || (open.last ?? false)
            var on = false
            if parentOnPath, n.depth < path.count {
                let c = path[n.depth]
                if let a = n.frame.symbol?.function, let b = c.symbol?.function { on = a == b }
                else { on = Self.samePlace(n.frame, c) || (n.depth == path.count - 1 && n.frame.image != nil && n.frame.image == c.image) }
            }
            marks[i] = on
            open.append(on)
        }
        return marks
    }
}
