import Faultline
import Foundation
import Testing

/// The options table (Sources/CFaultlineOptions) against the docs' option
/// tables: every variable a user may set is documented, every documented
/// variable is in the table, and the documented default is the table's —
/// and every FAULTLINE_* name the agent and shim spell in their C sources
/// is a row, so no variable is read past the table.
@Suite struct AgentOptionTableTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A docs table row naming one or more variables: file, the names, the default cell.
    struct DocRow { let file: String; let names: [String]; let defaultCell: String? }

    /// Rows of every markdown table in docs/ whose first cell names FAULTLINE_* variables.
    static func docRows() throws -> [DocRow] {
        let docs = root.appendingPathComponent("docs")
        var rows: [DocRow] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: docs.path).sorted() where file.hasSuffix(".md") {
            let text = try String(contentsOf: docs.appendingPathComponent(file), encoding: .utf8)
            var defaultColumn: Int?
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                guard line.hasPrefix("|") else { defaultColumn = nil; continue }
                let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                if let i = cells.firstIndex(where: { $0.lowercased().hasPrefix("default") }), !cells[0].contains("FAULTLINE_") {
                    defaultColumn = i
                    continue
                }
                guard let first = cells.first, first.hasPrefix("`FAULTLINE_") else { continue }
                let names = first.split(separator: "`").map(String.init).filter { $0.hasPrefix("FAULTLINE_") }
                rows.append(DocRow(file: file, names: names, defaultCell: defaultColumn.flatMap { $0 < cells.count ? cells[$0] : nil }))
            }
        }
        return rows
    }

    @Test func everyVariableUsersSetIsDocumented() throws {
        let documented = Set(try Self.docRows().flatMap(\.names))
        let missing = AgentOption.all.filter { !$0.isInternal && !documented.contains($0.name) }.map(\.name)
        #expect(missing.isEmpty, "in the options table but in no docs/*.md option table: \(missing)")
    }

    @Test func everyDocumentedVariableIsInTheTable() throws {
        let known = Set(AgentOption.all.map(\.name))
        let unknown = try Self.docRows().flatMap { r in r.names.filter { !known.contains($0) }.map { "\(r.file): \($0)" } }
        #expect(unknown.isEmpty, "documented but not in Sources/CFaultlineOptions/include/fl_options.h: \(unknown)")
    }

    /// Defaults that depend on who reads the variable or on other variables,
    /// which the docs say in words: the row and why.
    static let defaultsInWords: Set<String> = [
        "malloc-shim.md FAULTLINE_REPORT_DIR",       // the shim alone prints reports on stderr
        "leaks.md FAULTLINE_LEAK_TRACKING",          // follows FAULTLINE_DETECTORS
        "leaks.md FAULTLINE_LEAK_CHECK_AT_EXIT",     // follows FAULTLINE_DETECTORS
    ]

    @Test func documentedDefaultsAreTheTables() throws {
        let byName = Dictionary(uniqueKeysWithValues: AgentOption.all.map { ($0.name, $0) })
        var wrong: [String] = []
        for row in try Self.docRows() where row.names.count == 1 {
            guard let cell = row.defaultCell?.replacingOccurrences(of: "`", with: ""), let option = byName[row.names[0]],
                  !Self.defaultsInWords.contains("\(row.file) \(option.name)") else { continue }
            let plain = cell.replacingOccurrences(of: " ", with: "").replacingOccurrences(of: "\u{202F}", with: "")
            let shown = option.defaultValue.isEmpty ? "unset" : option.defaultValue
            let forms = [shown.replacingOccurrences(of: " ", with: "")] + (option.defaultNumber.map { [String($0)] } ?? [])
            if !forms.contains(where: plain.contains) {
                wrong.append("\(row.file): \(option.name) documents '\(cell)', the table says '\(shown)'")
            }
        }
        #expect(wrong.isEmpty, "\(wrong.joined(separator: "\n"))")
    }

    @Test func everyNameTheCSourcesSpellIsARow() throws {
        let known = Set(AgentOption.all.map(\.name))
        let pattern = try NSRegularExpression(pattern: "\"(FAULTLINE_[A-Z0-9_]+)\"")
        var unknown: Set<String> = []
        for folder in ["CFaultlineAgent", "CFaultlineCore", "CFaultlineMallocShim"] {
            let dir = Self.root.appendingPathComponent("Sources/\(folder)")
            let files = FileManager.default.enumerator(atPath: dir.path)?.compactMap { $0 as? String } ?? []
            for file in files where file.hasSuffix(".c") || file.hasSuffix(".cpp") || file.hasSuffix(".h") {
                let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
                for m in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    let name = (text as NSString).substring(with: m.range(at: 1))
                    if !known.contains(name) { unknown.insert("\(folder)/\(file): \(name)") }
                }
            }
        }
        #expect(unknown.isEmpty, "FAULTLINE_* variables named in C sources but not in the options table: \(unknown.sorted())")
    }

    @Test func sizesAndSignalsPrintAsTheDocsWriteThem() {
        let byName = Dictionary(uniqueKeysWithValues: AgentOption.all.map { ($0.name, $0) })
        #expect(byName["FAULTLINE_QUARANTINE_BYTES"]?.defaultValue == "16M")
        #expect(byName["FAULTLINE_SAMPLE_SIGNAL"]?.defaultValue == "SIGRTMIN+8")
        #expect(byName["FAULTLINE_REPORT_DIR"]?.namesOutput == true)
        #expect(byName["FAULTLINE_REPORT_DIR_REFUSED"]?.isInternal == true)
    }
}
