import Faultline
import Foundation
import Synchronization

/// Live progress on stderr: one line per finished run (verdict, name,
/// time, first reason) and, when stderr is a terminal, a "running: …"
/// status line kept at the bottom.
public final class ConsoleProgress: RunProgress {
    private struct State {
        var running: [String] = []
        var finished = 0
    }
    private let state = Mutex(State())
    private let total: Int
    private let isTerminal: Bool

    /// `total` is the number of runs, for the "[k/total]" counter.
    public init(total: Int, isTerminal: Bool = isatty(2) != 0) {
        self.total = total
        self.isTerminal = isTerminal
    }

    public func started(_ scenario: Scenario, repeatIndex: Int?) {
        state.withLock { s in
            s.running.append(Self.label(scenario.name, repeatIndex))
            drawStatus(s)
        }
    }

    public func finished(_ scenario: Scenario, _ record: RunRecord) {
        state.withLock { s in
            let label = Self.label(scenario.name, record.repeatIndex)
            s.running.removeAll { $0 == label }
            // A rerun is not one of the `total` runs: it keeps its run's count.
            if record.rerunIndex == nil { s.finished += 1 }
            let shown = label + (record.rerunIndex.map { " (rerun \($0))" } ?? "")
            var verdict = record.verdict.rawValue
            if scenario.xfail != nil && record.verdict != .skip { verdict = record.verdict == .pass ? "XPASS" : "XFAIL" }
            var line = "[\(s.finished)/\(total)] \(verdict.padding(toLength: max(4, verdict.count), withPad: " ", startingAt: 0))  \(shown)  \(Units.elapsed(record.durationSeconds))"
            if let reason = record.reason { line += "  \(abbreviate(reason, limit: 120))" }
            write((isTerminal ? "\r\u{1B}[K" : "") + line + "\n")
            drawStatus(s)
        }
    }

    /// Clears the status line (call before printing the final table).
    public func done() {
        if isTerminal { write("\r\u{1B}[K") }
    }

    private func drawStatus(_ s: State) {
        guard isTerminal else { return }
        let text = s.running.isEmpty ? "" : "running: " + s.running.joined(separator: ", ")
        write("\r\u{1B}[K" + abbreviate(text, limit: 150))
    }

    private func write(_ text: String) {
        Console.err(text)
    }

    static func label(_ name: String, _ repeatIndex: Int?) -> String {
        repeatIndex.map { "\(name) #\($0)" } ?? name
    }
}
