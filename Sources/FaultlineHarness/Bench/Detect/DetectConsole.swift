/// The console form of the detection matrix: class × tool counts with the
/// totals and the cost row, then one line per case with a letter per tool.
public enum DetectConsole {
    /// What a cell says.
    public static let legend = "cell: R/N = caught at the right frame (the culprit in the tool's stack) out of N cases; +C caught without it; F false (another class named); X tool failed; n/a not installed"

    /// The tables as text.
    public static func render(_ m: DetectMatrix) -> String {
        var t = TextTable(header: ["class"] + m.tools.map(\.label))
        for c in m.classes {
            let n = m.cases.filter { $0.bugClass == c }.count
            t.rows.append(["\(c) (\(n))"] + m.tools.map { m.cell(c, $0.id) })
        }
        t.rows.append(["total (\(m.cases.count))"] + m.tools.map { m.cell(nil, $0.id) })
        t.rows.append(["cost (CPU x glibc)"] + m.tools.map { $0.cost ?? "-" })
        var out = "Detection matrix, \(m.cases.count) cases\n\n" + t.render() + legend + "\n"
        for tool in m.tools { if let why = tool.unavailable { out += "\(tool.label): \(why)\n" } }
        out += "\nper case, one letter per tool (\(m.tools.map(\.label).joined(separator: ", "))): R right frame, C caught, . missed, F false, X failed, - n/a\n"
        for c in m.cases {
            let letters = m.tools.map { m.result(c.name, $0.id)?.outcome.letter ?? "?" }.joined()
            out += "\(letters)  \(c.name)  (\(c.statedClass) at \(c.culprits.joined(separator: " < ")))\n"
        }
        return out
    }
}
