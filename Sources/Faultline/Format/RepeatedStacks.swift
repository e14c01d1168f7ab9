import Foundation

/// Stacks a report holds twice, which `ReportFormatter` prints once: the
/// watchdog's reports list the culprit as the reported thread and again
/// among every thread, and a deadlock's `cycle` (or a hang's `chain`)
/// repeats each waiting thread's frames beside its lock. A copy with the
/// same thread id and the same program counters as a thread already
/// printed is left out (in a section, its `frames` become `same as thread
/// N above`); a stack that differs, such as a culprit taken before the
/// current stack, is still printed.
enum RepeatedStacks {
    /// True when `thread` repeats the report's crashed (or reported)
    /// thread, frame for frame.
    static func repeatsReportedThread(_ thread: Report.ThreadInfo, in r: Report) -> Bool {
        guard let reported = r.crashedThread, reported.tid == thread.tid, !thread.frames.isEmpty else { return false }
        return reported.frames.map(\.pc.value) == thread.frames.map(\.pc.value)
    }

    /// The watchdog's sections with the frames of threads printed above
    /// replaced by a pointer to them; empty when nothing repeats.
    static func sectionOverrides(_ r: Report) -> [String: JSONValue?] {
        var printed: [Int64: [UInt64]] = [:]
        for t in r.allThreads where !t.frames.isEmpty { printed[Int64(t.tid)] = printed[Int64(t.tid)] ?? t.frames.map(\.pc.value) }
        guard !printed.isEmpty else { return [:] }
        var out: [String: JSONValue?] = [:]
        for key in ["deadlock", "hang"] {
            guard let section = r.sections[key] else { continue }
            let replaced = replacing(section, printed: printed)
            if replaced != section { out[key] = replaced }
        }
        return out
    }

    /// `value` with each `{tid, frames}` object's frames replaced when that
    /// thread's printed stack has the same program counters.
    private static func replacing(_ value: JSONValue, printed: [Int64: [UInt64]]) -> JSONValue {
        switch value {
        case .array(let items):
            return .array(items.map { replacing($0, printed: printed) })
        case .object(var o):
            if let tid = o["tid"]?.integerValue, let frames = SectionFrames.stack(o["frames"]),
               printed[tid] == frames.map(\.pc.value) {
                o["frames"] = .string("same as thread \(tid) above")
                return .object(o)
            }
            return .object(o.mapValues { replacing($0, printed: printed) })
        default:
            return value
        }
    }
}
