/// Left-aligned columns for the console; the last column is not padded.
struct TextTable {
    var header: [String]
    var rows: [[String]] = []

    /// The table as lines (header, a rule, rows).
    func render() -> String {
        let all = [header] + rows
        var widths = [Int](repeating: 0, count: header.count)
        for row in all { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) } }
        func line(_ row: [String]) -> String {
            row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count)
            }.joined(separator: "  ")
        }
        let rule = widths.enumerated().map { i, w in String(repeating: "-", count: i == widths.count - 1 ? max(3, header[i].count) : w) }
        return ([line(header), rule.joined(separator: "  ")] + rows.map(line)).joined(separator: "\n") + "\n"
    }
}
