import Foundation

/// Runs one program under several setups (glibc alone, the shim in its
/// modes, the peer tools) and measures each run from outside: CPU time and
/// peak RSS from wait4, wall time. Faultline's own setups alternate in the
/// schedule with warm-up discarded; peers, 10-1000x slower, run
/// `peerRuns` times each afterwards. A setup whose output differs from
/// glibc's, that fails or that is stopped at the time limit is reported as
/// such.
struct BenchProgramComparison {
    /// One setup.
    struct Setup {
        /// Configuration id.
        var id: String
        /// For people.
        var label: String
        /// Full argv (a wrapper such as valgrind first).
        var arguments: [String]
        /// LD_PRELOAD and options.
        var environment: [String: String] = [:]
        /// A peer tool (run `peerRuns` times, after the alternating rounds).
        var peer: Bool = false
        /// Why it cannot run here, or nil.
        var unavailable: String? = nil
    }

    /// Section name.
    var group: String
    /// Metric name prefix (`shim.synthetic`).
    var prefix: String
    /// What the program is, for titles.
    var what: String
    /// The setups; the first is the baseline (glibc).
    var setups: [Setup]
    /// Measured rounds of Faultline's setups.
    var rounds: Int
    /// Discarded rounds.
    var warmup: Int
    /// Runs of each peer.
    var peerRuns: Int
    /// Time limit of one run.
    var timeLimit: Double
    /// The part of stdout that must equal glibc's (e.g. a checksum).
    var outputKey: (String) -> String
    /// Progress lines.
    var progress: (String) -> Void

    /// The CPU, wall and peak-RSS metrics.
    func run() -> [BenchMetric] {
        var cpu = [[Double]](repeating: [], count: setups.count)
        var wall = cpu, rss = cpu
        var notes = [String?](repeating: nil, count: setups.count)
        var status = [BenchStatus](repeating: .ok, count: setups.count)
        var expected: String?
        let mine = setups.indices.filter { !setups[$0].peer && setups[$0].unavailable == nil }
        let peers = setups.indices.filter { setups[$0].peer && setups[$0].unavailable == nil }
        var slots: [(Int, Bool)] = BenchSchedule(configs: mine.count, rounds: rounds, warmup: warmup).slots.map { (mine[$0.config], $0.warmup) }
        for _ in 0..<peerRuns { slots += peers.map { ($0, false) } }
        for (index, warm) in slots where status[index] == .ok {
            let s = setups[index]
            progress("\(group): \(s.label)\(warm ? " (warm-up)" : "")")
            do {
                let o = try BenchProcess(arguments: s.arguments, environment: s.environment, timeLimit: timeLimit).run()
                if o.timedOut { status[index] = .timedOut; notes[index] = o.failureDescription; continue }
                if !o.succeeded { status[index] = .failed; notes[index] = o.failureDescription; continue }
                let key = outputKey(o.stdout)
                if expected == nil && index == 0 { expected = key }
                if let expected, key != expected {
                    status[index] = .failed
                    notes[index] = "output differs from glibc's"
                    continue
                }
                if warm { continue }
                cpu[index].append(o.cpuSeconds)
                wall[index].append(o.wallSeconds)
                rss[index].append(o.maxRSSMB)
            } catch {
                status[index] = .failed
                notes[index] = "\(error)"
            }
        }
        func metric(_ suffix: String, _ title: String, _ unit: String, _ values: [[Double]]) -> BenchMetric {
            var m = BenchMetric(group: group, name: "\(prefix)_\(suffix)", title: "\(what): \(title)", unit: unit, baseline: setups[0].id)
            for (i, s) in setups.enumerated() {
                if let why = s.unavailable {
                    m.entries.append(BenchEntry(config: s.id, label: s.label, status: .unavailable, note: why))
                } else {
                    let note = notes[i] ?? (s.peer ? "\(values[i].count) run(s), after the alternating rounds" : nil)
                    m.entries.append(BenchEntry(config: s.id, label: s.label, status: status[i], samples: status[i] == .ok ? values[i] : [], note: note))
                }
            }
            m.computeRatios()
            return m
        }
        return [metric("cpu", "CPU time (user + system)", "s", cpu),
                metric("rss", "peak RSS", "MB", rss),
                metric("wall", "wall time", "s", wall)]
    }
}
