import CFaultlineCore
import Foundation
import Testing

/// The allocation-free JSON writer every report goes through, called
/// directly: what it writes must parse as JSON and say what was given,
/// and a full buffer must be flagged, never overrun.
@Suite struct JSONWriterTests {
    /// Runs `body` on a writer over a `capacity`-byte buffer; the text and the overflow flag.
    func write(capacity: Int = 4096, _ body: (UnsafeMutablePointer<fl_json>) -> Void) -> (String, Bool) {
        var buffer = [CChar](repeating: 0x7F, count: capacity + 16)
        var w = fl_json()
        return buffer.withUnsafeMutableBufferPointer { b in
            fl_json_init(&w, b.baseAddress, capacity)
            body(&w)
            let text = String(decoding: UnsafeRawBufferPointer(start: b.baseAddress, count: w.len), as: UTF8.self)
            #expect(b[capacity..<(capacity + 16)].allSatisfy { $0 == 0x7F }, "wrote past the buffer")
            return (text, w.overflowed != 0)
        }
    }

    @Test func nestedValuesParseAsWritten() throws {
        let (text, overflowed) = write { w in
            fl_json_begin_object(w, nil)
            fl_json_string(w, "kind", "crash")
            fl_json_int(w, "pid", -42)
            fl_json_uint(w, "big", UInt64.max)
            fl_json_bool(w, "yes", 1)
            fl_json_null(w, "none")
            fl_json_hex(w, "pc", 0xdead_beef)
            fl_json_begin_array(w, "frames")
            fl_json_string(w, nil, "a")
            fl_json_begin_object(w, nil)
            fl_json_int(w, "n", 1)
            fl_json_end_object(w)
            fl_json_end_array(w)
            fl_json_raw(w, "raw", "[1,2]", 5)
            fl_json_end_object(w)
        }
        #expect(!overflowed)
        let o = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(o["kind"] as? String == "crash")
        #expect(o["pid"] as? Int == -42)
        #expect((o["big"] as? NSNumber)?.uint64Value == UInt64.max)
        #expect(o["yes"] as? Bool == true)
        #expect(o["none"] is NSNull)
        #expect(o["pc"] as? String == "0xdeadbeef")
        #expect((o["frames"] as? [Any])?.count == 2)
        #expect(o["raw"] as? [Int] == [1, 2])
    }

    @Test func stringsAreEscapedAndInvalidUTF8Kept() throws {
        let hostile: [UInt8] = Array("q\"b\\n\n\t\u{1}é".utf8) + [0xFF, 0xC3]
        let (text, _) = write { w in
            fl_json_begin_object(w, nil)
            hostile.withUnsafeBufferPointer { p in
                p.withMemoryRebound(to: CChar.self) { fl_json_string_n(w, "s", $0.baseAddress, $0.count) }
            }
            fl_json_end_object(w)
        }
        let o = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String])
        let s = try #require(o["s"])
        #expect(s.hasPrefix("q\"b\\n\n\t\u{1}é"))
        #expect(s.unicodeScalars.suffix(2).map(\.value) == [0xFF, 0xC3], "invalid bytes are \\u00XX: \(text)")
    }

    @Test func aFullBufferIsFlaggedNotOverrun() {
        let (text, overflowed) = write(capacity: 32) { w in
            fl_json_begin_object(w, nil)
            for _ in 0..<20 { fl_json_string(w, "key", "a value that does not fit") }
            fl_json_end_object(w)
        }
        #expect(overflowed)
        #expect(text.utf8.count <= 32)
    }

    @Test func nestingPastTheDepthLimitIsFlagged() {
        let (_, overflowed) = write { w in
            for _ in 0..<(FL_JSON_MAX_DEPTH + 4) { fl_json_begin_array(w, nil) }
        }
        #expect(overflowed, "deeper than FL_JSON_MAX_DEPTH must not index past need_comma")
    }
}
