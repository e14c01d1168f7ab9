import CFaultlineSuppressions
import Testing

/// The suppressions parser the shim and `faultline exec` share, called
/// directly: each line's verdict, kind, pattern and number.
@Suite struct SuppressionsParseTests {
    struct Line: Equatable { let verdict: fl_supp_verdict; let number: Int32; let kind: fl_supp_kind?; let pattern: String? }

    func lines(_ text: String) -> [Line] {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { b in
            b.withMemoryRebound(to: CChar.self) { c in
                var reader = fl_supp_reader()
                reader.text = c.baseAddress
                reader.len = c.count
                var out: [Line] = []
                var line = fl_supp_line()
                while true {
                    let v = fl_supp_next(&reader, &line)
                    if v == FL_SUPP_END { break }
                    let pattern = v == FL_SUPP_ENTRY
                        ? String(decoding: UnsafeRawBufferPointer(start: line.pattern, count: line.pattern_len), as: UTF8.self) : nil
                    out.append(Line(verdict: v, number: line.number, kind: v == FL_SUPP_ENTRY ? line.kind : nil, pattern: pattern))
                }
                return out
            }
        }
    }

    @Test func entriesCommentsAndBlanks() {
        let got = lines("# comment\n\n  leak:make_tree  \r\ndouble_free:*free_twice*\n\twrite_after_free:libfoo.so\nheap_buffer_overflow:^fill$\nheap_buffer_underflow:libbar\n")
        #expect(got == [
            Line(verdict: FL_SUPP_ENTRY, number: 3, kind: FL_SUPP_LEAK, pattern: "make_tree"),
            Line(verdict: FL_SUPP_ENTRY, number: 4, kind: FL_SUPP_DOUBLE_FREE, pattern: "*free_twice*"),
            Line(verdict: FL_SUPP_ENTRY, number: 5, kind: FL_SUPP_WRITE_AFTER_FREE, pattern: "libfoo.so"),
            Line(verdict: FL_SUPP_ENTRY, number: 6, kind: FL_SUPP_HEAP_BUFFER_OVERFLOW, pattern: "^fill$"),
            Line(verdict: FL_SUPP_ENTRY, number: 7, kind: FL_SUPP_HEAP_BUFFER_UNDERFLOW, pattern: "libbar"),
        ])
    }

    @Test func badLinesSayWhy() {
        let long = "leak:" + String(repeating: "x", count: Int(FL_SUPP_PATTERN_MAX))
        let got = lines("nonsense\nleak:\n\(long)\nleak:ok")
        #expect(got.map(\.verdict) == [FL_SUPP_NOT_A_SUPPRESSION, FL_SUPP_NOT_A_SUPPRESSION, FL_SUPP_PATTERN_TOO_LONG, FL_SUPP_ENTRY])
        #expect(got.map(\.number) == [1, 2, 3, 4])
    }

    @Test func aNulByteIsNoSuppression() {
        #expect(lines("leak:a\u{0}b").map(\.verdict) == [FL_SUPP_NOT_A_SUPPRESSION])
    }

    @Test func entriesPastTheLimitAreTooMany() {
        let text = (0...Int(FL_SUPP_MAX_ENTRIES)).map { "leak:f\($0)" }.joined(separator: "\n")
        let got = lines(text)
        #expect(got.filter { $0.verdict == FL_SUPP_ENTRY }.count == Int(FL_SUPP_MAX_ENTRIES))
        #expect(got.last?.verdict == FL_SUPP_TOO_MANY)
    }
}
