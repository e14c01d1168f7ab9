import Foundation

/// Runs a benchmark program that follows the JSON-lines contract: each
/// invocation (one per configuration, or one printing several) is run in the
/// alternating schedule, warm-up rounds are discarded, and the printed
/// samples are gathered per metric and configuration.
struct BenchLineRunner {
    /// One way of calling the program.
    struct Invocation {
        /// Name for progress and failure notes.
        var id: String
        /// argv after the program.
        var arguments: [String]
        /// Extra environment.
        var environment: [String: String] = [:]
    }

    /// Section name.
    var group: String
    /// Absolute path of the program.
    var program: String
    /// The invocations to alternate.
    var invocations: [Invocation]
    /// Measured rounds.
    var rounds: Int
    /// Discarded rounds.
    var warmup: Int
    /// Time limit of one invocation.
    var timeLimit: Double
    /// Title, baseline and display label of the metrics the program prints.
    var describe: (String) -> (title: String, baseline: String?)
    /// Label of a configuration id.
    var label: (String) -> String
    /// Progress lines.
    var progress: (String) -> Void

    /// Runs the schedule and returns the metrics in the order first printed.
    func run() -> [BenchMetric] {
        var order: [String] = []
        var units: [String: String] = [:]
        var configs: [String: [String]] = [:]
        var samples: [String: [String: [Double]]] = [:]
        var notes: [String: [String: String]] = [:]
        var failures: [String] = []
        let schedule = BenchSchedule(configs: invocations.count, rounds: rounds, warmup: warmup)
        for slot in schedule.slots {
            let inv = invocations[slot.config]
            let name = (program as NSString).lastPathComponent
            progress("\(group): \(name) \(inv.arguments.joined(separator: " "))\(slot.warmup ? " (warm-up)" : "")")
            let outcome: BenchProcess.Outcome
            do {
                outcome = try BenchProcess(arguments: [program] + inv.arguments, environment: inv.environment, timeLimit: timeLimit).run()
            } catch {
                failures.append("\(inv.id): \(error)")
                continue
            }
            guard outcome.succeeded else {
                failures.append("\(inv.id): \(outcome.failureDescription)")
                continue
            }
            let lines: [BenchSampleLine]
            do { lines = try BenchSampleLine.parse(outcome.stdout, program: name) } catch {
                failures.append("\(inv.id): \(error)")
                continue
            }
            for line in lines {
                if samples[line.metric] == nil { order.append(line.metric); samples[line.metric] = [:]; configs[line.metric] = [] }
                if samples[line.metric]![line.config] == nil { samples[line.metric]![line.config] = []; configs[line.metric]!.append(line.config) }
                units[line.metric] = line.unit
                if let n = line.note, !n.isEmpty { notes[line.metric, default: [:]][line.config] = n }
                if !slot.warmup { samples[line.metric]![line.config]! += line.allValues }
            }
        }
        var metrics: [BenchMetric] = []
        for name in order {
            let d = describe(name)
            var m = BenchMetric(group: group, name: name, title: d.title, unit: units[name] ?? "", baseline: d.baseline)
            for c in configs[name] ?? [] {
                let s = samples[name]?[c] ?? []
                m.entries.append(BenchEntry(config: c, label: label(c), status: s.isEmpty ? .failed : .ok, samples: s,
                                            note: s.isEmpty ? "no samples kept (failed after warm-up)" : notes[name]?[c]))
            }
            m.computeRatios()
            metrics.append(m)
        }
        if !failures.isEmpty {
            // Runs that failed are shown, not hidden: one entry per failure kind.
            var m = BenchMetric(group: group, name: "\(group).failures", title: "\(group): runs that failed", unit: "")
            for (i, f) in Set(failures).sorted().enumerated() {
                m.entries.append(BenchEntry(config: "failure\(i + 1)", label: String(f.prefix(60)), status: .failed, note: f))
            }
            metrics.append(m)
        }
        if order.isEmpty && failures.isEmpty {
            metrics.append(BenchMetric(group: group, name: "\(group).output", title: "\(group): no measurements printed", unit: "",
                                       entries: [BenchEntry(config: "program", label: (program as NSString).lastPathComponent, status: .failed,
                                                            note: "the program printed no JSON lines")]))
        }
        return metrics
    }
}
