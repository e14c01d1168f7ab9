/// A report's signature: which bug it is, stable across runs, ASLR,
/// machines and rebuilds of unrelated code, so that reports of the same
/// bug group together (`faultline report groups`, Sentry's `fingerprint`).
///
/// `text` is the kind (with the signal for a crash, the exception type for
/// an uncaught C++ exception) and the first significant frames of the
/// report's stack, after `SignatureRules` skipped the frames that say
/// nothing: `crash SIGSEGV | victim_null_deref | crash_thread`. A frame is
/// its demangled function name (innermost inlined function first); with no
/// symbol, its image's file name and offset (`victim-c+0x1f73`), never an
/// address. `id` is 16 hex digits of the text's 64-bit FNV-1a hash.
public struct ReportSignature: Codable, Sendable, Hashable {
    /// 16 lower-case hex digits: the hash of `text`.
    public var id: String
    /// The signature as people read it.
    public var text: String
    /// The frames it names, innermost first.
    public var frames: [String]
    /// Which stack of the report they came from (`crashed_thread`,
    /// `throw_stack`, `groups[2].allocation_stack`, …); absent when the
    /// report had no stack and the signature is its kind and process.
    public var stack: String?
    /// False when some frame had no symbol and is named by image and
    /// offset (which a rebuild of that image changes).
    public var symbolicated: Bool
    /// A `leak` report's groups, one signature each (in `groups` order, a
    /// group with no stack left out); the report's own is its largest's.
    public var leakGroups: [ReportSignature]?

    /// A signature over `head` (the kind part) and `frames`.
    public init(head: String, frames: [String], stack: String?, symbolicated: Bool) {
        self.text = ([head] + frames).joined(separator: " | ")
        self.id = Self.hash(text)
        self.frames = frames
        self.stack = stack
        self.symbolicated = symbolicated
    }

    /// 64-bit FNV-1a of the UTF-8 text, as 16 hex digits.
    static func hash(_ text: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01b3
        }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
