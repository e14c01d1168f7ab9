/// The detection matrix as a section of the bench HTML page: the class ×
/// tool table (cells coloured by how much was caught at the right frame),
/// then every case with each tool's outcome, class named and time.
enum DetectHTML {
    static func section(_ m: DetectMatrix) -> String {
        let e = BenchHTML.escape
        var s = "<h2>detect: what each tool catches</h2>\n<p>\(e(DetectConsole.legend)). \(m.cases.count) cases, \(Int(m.elapsedSeconds)) s.</p>\n"
        s += "<table><tr><th>class</th>" + m.tools.map { "<th>\(e($0.label))</th>" }.joined() + "</tr>\n"
        func row(_ title: String, _ c: String?) -> String {
            "<tr><td>\(e(title))</td>" + m.tools.map { t in
                let k = m.counts(c, t.id), n = max(1, k.values.reduce(0, +))
                let share = Double(k[.rightFrame] ?? 0) / Double(n)
                let colour = t.unavailable != nil ? "#eee" : share >= 0.999 ? "#bde5b8" : share > 0 ? "#f3e6a8" : "#f2c4c4"
                return "<td style=\"background:\(colour)\">\(e(m.cell(c, t.id)))</td>"
            }.joined() + "</tr>\n"
        }
        for c in m.classes { s += row("\(c) (\(m.cases.filter { $0.bugClass == c }.count))", c) }
        s += row("total (\(m.cases.count))", nil)
        s += "<tr><td>cost (CPU x glibc, peers bench)</td>" + m.tools.map { "<td>\(e($0.cost ?? "-"))</td>" }.joined() + "</tr>\n</table>\n"
        for t in m.tools { if let why = t.unavailable { s += "<p>\(e(t.label)): \(e(why))</p>\n" } }
        s += "<h3>Cases</h3>\n<table><tr><th>case</th><th>class at culprit</th>" + m.tools.map { "<th>\(e($0.label))</th>" }.joined() + "</tr>\n"
        for c in m.cases {
            s += "<tr><td title=\"\(e(c.description))\">\(e(c.name))</td><td>\(e(c.statedClass)) at \(e(c.culprits.joined(separator: " < ")))</td>"
            for t in m.tools {
                guard let r = m.result(c.name, t.id) else { s += "<td>?</td>"; continue }
                let tip = ([r.className ?? "nothing named"] + (r.frames.isEmpty ? [] : [r.frames.prefix(6).joined(separator: " < ")]) + (r.note.map { [$0] } ?? []))
                    .joined(separator: "; ")
                s += "<td title=\"\(e(tip))\">\(r.outcome.letter) \(BenchFormat.number(r.seconds)) s</td>"
            }
            s += "</tr>\n"
        }
        return s + "</table>\n"
    }
}
