import Faultline
import Foundation
import Synchronization

/// Runs a case under Faultline as `faultline exec` would: every detector
/// on (the default), the scenario's own environment, and for the guard
/// column `FAULTLINE_GUARD=all`; the scenario's expectations are not
/// checked here, its reports are read into verdicts.
struct DetectFaultlineRun {
    let build: BuildDirectory
    /// A folder of this run's own; each column's runs go below it.
    let directory: String
    let symbolicator = Symbolicator()

    func run(_ c: DetectCase, guardAll: Bool) -> DetectResult {
        let tool = guardAll ? "faultline_guard" : "faultline"
        var s = c.scenario
        s.inject = Detector.allCases.filter { $0 != .shim }
        s.env["FAULTLINE_GUARD"] = guardAll ? "all" : nil
        s.expect = ScenarioExpectation()
        s.xfail = nil
        let runDirectory = "\(directory)/\(tool)"
        try? FileManager.default.createDirectory(atPath: runDirectory, withIntermediateDirectories: true)
        let seen = Mutex<[ReportStore.Entry]>([])
        var options = RunOptions(buildDirectory: build, artifactsRoot: directory, jobs: 1)
        options.reportsRead = { _, entries in seen.withLock { $0 = entries } }
        let record = ScenarioExecution(scenario: s, repeatIndex: nil, options: options, runDirectory: runDirectory,
                                       requirements: RequirementCache()).run()
        if let f = record.failures.first(where: { ["inject", "victim", "artifacts"].contains($0.check) }) {
            return DetectResult(caseName: s.name, tool: tool, outcome: .failed, seconds: record.durationSeconds, note: "\(f.check): \(f.found)")
        }
        let verdicts = seen.withLock { $0 }.compactMap { entry -> DetectVerdict? in
            guard case .success(let report) = entry.result else { return nil }
            return Self.verdict(symbolicator.symbolicate(report))
        }
        let timedOut = record.failures.contains { $0.check == "timeout" }
        return DetectResult.judge(c, tool: tool, verdicts: verdicts, seconds: record.durationSeconds,
                                  note: timedOut ? "killed at the scenario's timeout (\(Units.describe(seconds: s.timeout)))" : nil)
    }

    /// A report as a verdict: a crash that is a memory error is that error
    /// (`memory_error.kind`); the frames are the crashed thread's, and for a
    /// leak every allocation stack's.
    static func verdict(_ report: Report) -> DetectVerdict {
        var className = report.kind
        if report.kind == "crash", case .object(let m)? = report.sections["memory_error"], let k = m["kind"]?.stringValue { className = k }
        var frames = report.crashedThread.map(ReportCheck.functionNames) ?? []
        if report.kind.hasPrefix("leak") { frames += allocationFunctions(ExpectationChecker.json(of: report), inStack: false) }
        return DetectVerdict(className: className, frames: frames)
    }

    /// Every `function` text below an `allocation_stack` key.
    static func allocationFunctions(_ v: JSONValue, inStack: Bool) -> [String] {
        switch v {
        case .object(let o):
            return o.sorted { $0.key < $1.key }.flatMap { k, child -> [String] in
                if inStack && k == "function", let s = child.stringValue { return [s] }
                return allocationFunctions(child, inStack: inStack || k == "allocation_stack")
            }
        case .array(let a): return a.flatMap { allocationFunctions($0, inStack: inStack) }
        default: return []
        }
    }
}
