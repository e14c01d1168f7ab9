import Foundation

/// The breadcrumbs the agent's memory monitor leaves in
/// `FAULTLINE_REPORT_DIR/memory-PID.breadcrumbs`: a file-backed shared
/// mapping written at 50, 75, 90 and 95 % of the limit, which survives the
/// SIGKILL of an OOM kill. Layout (little-endian; docs/memory-limits.md):
/// a 4096-byte header — magic `FLMEMBC1`, u32 version, u32 slot size,
/// u32 slot count, u32 pid, u32 last slot + 1, u32 writes — then the
/// slots, each u32 state (2 = complete), u32 JSON length, u32 sequence,
/// u32 reserved, and the JSON text.
public struct MemoryBreadcrumbs: Sendable {
    /// One complete breadcrumb.
    public struct Crumb: Sendable {
        /// Order of writing (higher is later).
        public var sequence: UInt32
        /// The JSON object the monitor wrote.
        public var json: JSONValue
    }

    /// The process that wrote the file.
    public var pid: Int32
    /// Complete breadcrumbs, oldest first.
    public var crumbs: [Crumb]

    /// The most recent breadcrumb.
    public var last: Crumb? { crumbs.last }

    /// The file name for `pid`.
    public static func fileName(pid: Int32) -> String { "memory-\(pid).breadcrumbs" }

    /// Reads the file of `pid` in `directory`; nil when absent or not a
    /// breadcrumb file. Slots caught mid-write are skipped.
    public static func read(directory: String, pid: Int32) -> MemoryBreadcrumbs? {
        guard let data = FileManager.default.contents(atPath: directory + "/" + fileName(pid: pid)) else { return nil }
        return parse(data)
    }

    /// Parses the bytes of a breadcrumb file.
    public static func parse(_ data: Data) -> MemoryBreadcrumbs? {
        let bytes = [UInt8](data)
        func u32(_ at: Int) -> UInt32? {
            guard at + 4 <= bytes.count else { return nil }
            return UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        guard bytes.count >= 4096, Array(bytes[0..<8]) == Array("FLMEMBC1".utf8), u32(8) == 1,
              let slotSize = u32(12).map(Int.init), let slots = u32(16).map(Int.init), let pid = u32(20),
              slotSize > 16, slots <= 64 else { return nil }
        var crumbs: [Crumb] = []
        for i in 0..<slots {
            let base = 4096 + i * slotSize
            guard let state = u32(base), state == 2, let length = u32(base + 4).map(Int.init), let seq = u32(base + 8),
                  length <= slotSize - 16, base + 16 + length <= bytes.count else { continue }
            let text = Data(bytes[(base + 16)..<(base + 16 + length)])
            guard let json = try? JSONDecoder().decode(JSONValue.self, from: text) else { continue }
            crumbs.append(Crumb(sequence: seq, json: json))
        }
        crumbs.sort { $0.sequence < $1.sequence }
        return MemoryBreadcrumbs(pid: Int32(bitPattern: pid), crumbs: crumbs)
    }
}
