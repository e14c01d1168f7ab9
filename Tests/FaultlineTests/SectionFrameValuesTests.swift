import Foundation
import Testing
@testable import Faultline

/// The direct frame and symbol conversions give what the general JSON
/// round trip gives, for the usual shapes and for odd ones.
@Suite struct SectionFrameValuesTests {
    func general(_ o: [String: JSONValue]) -> Report.Frame? { try? JSONValue.object(o).decode(Report.Frame.self) }

    func object(_ json: String) throws -> [String: JSONValue] {
        guard case .object(let o) = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)) else {
            throw CocoaError(.coderReadCorrupt)
        }
        return o
    }

    @Test func framesConvertAsTheRoundTripDoes() throws {
        let shapes = [
            #"{"pc": "0x55f11db85a2c", "image": 0, "offset": "0x1a2c", "return_address": true}"#,
            #"{"pc": "0x10", "image": 3, "offset": "0x10", "symbol": {"function": "f", "file": "a.c", "line": 4, "column": 2, "inlined": [{"function": "g", "line": 9}]}}"#,
            #"{"pc": "0x10", "image": null, "offset": null}"#,
            #"{"pc": "0x10", "image": 1.5}"#,
            #"{"pc": 4096, "image": 1}"#,
            #"{"pc": "zz"}"#,
            #"{"pc": "0x10", "returnAddress": false}"#,
            #"{"pc": "0x10", "return_address": 1}"#,
            #"{"pc": "0x10", "extra": "kept out"}"#,
            #"{"pc": "0x10", "symbol": {"function": null}}"#,
            #"{"pc": "0x10", "symbol": {"function": "f", "line": "4"}}"#,
            #"{"image": 1}"#,
        ]
        for text in shapes {
            let o = try object(text)
            #expect(SectionFrames.frame(o) == general(o), "\(text)")
        }
        // The usual shape takes the direct path.
        #expect(SectionFrameValues.frame(try object(shapes[0])) != nil)
        #expect(SectionFrameValues.frame(try object(shapes[1]))?.symbol?.inlined?.first?.line == 9)
    }

    @Test func symbolsBecomeTheJSONTheEncoderWrites() throws {
        let symbols = [
            Report.Symbol(function: "f"),
            Report.Symbol(function: "main", file: "/src/main.c", line: 122, column: 9,
                          inlined: [Report.Symbol(function: "g", file: nil, line: 3, column: nil, inlined: [])]),
        ]
        for s in symbols {
            let data = try JSONEncoderFactory.plain().encode(s)
            let viaCoder = try JSONDecoderFactory.reports().decode(JSONValue.self, from: data)
            #expect(SectionFrames.json(s) == viaCoder)
        }
    }
}
