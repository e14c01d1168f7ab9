// bench-html: how long headless Chromium takes to load and lay out the
// HTML report page (`faultline report html`) of a big report and of many
// reports. Prints figures; asserts nothing.
//
//   bench-html [--runs N] [--keep DIR]
//
// Reports come from real victims run under `faultline exec` next to this
// program: a crash, a hang, a deadlock, a leak, a leak of 8192 groups
// (made a 10 MB file by symbolicating it, as `report show --json` writes
// it) and, where memory cgroups work, an OOM kill. The 10 000-report page
// is those reports copied with new ids, as a suite run repeats its sites.
import Faultline
import FaultlineHarness
import Foundation

/// A line on stdout at once (print's buffer held every figure of a run that was then killed).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

var runs = 3
var keep: String?
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--runs": runs = Int(args.popFirst() ?? "") ?? runs
    case "--keep": keep = args.popFirst()
    default:
        FileHandle.standardError.write(Data("bench-html: unknown argument \(a); usage: bench-html [--runs N] [--keep DIR]\n".utf8))
        exit(64)
    }
}
guard let browser = HeadlessChromium.installed() else {
    say("bench-html: SKIP: \(HeadlessChromium.missing!)")
    exit(0)
}
let bin = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
let faultline = "\(bin)/faultline"
let work = keep ?? NSTemporaryDirectory() + "faultline-bench-html-\(getpid())"
// Reports of an earlier run in a kept folder would be counted twice.
try? FileManager.default.removeItem(atPath: "\(work)/reports")
try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
defer { if keep == nil { try? FileManager.default.removeItem(atPath: work) } }

/// Runs `faultline exec` of a victim into `work/reports/<name>`.
func victim(_ name: String, _ argv: [String], options: [String] = [], env: [String: String] = [:]) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: faultline)
    p.arguments = ["exec", "--no-symbolicate", "--report-dir", "\(work)/reports/\(name)"] + options + ["--", "\(bin)/\(argv[0])"] + argv.dropFirst()
    p.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
    p.standardError = FileHandle.nullDevice
    p.standardOutput = FileHandle.nullDevice
    try? p.run()
    p.waitUntilExit()
}
victim("crash", ["victim-c", "crash-with-threads"])
victim("hang", ["victim-hang", "spin-recover", "3000"], options: ["--detectors", "crash,hang"])
victim("deadlock", ["victim-hang", "abba"], options: ["--detectors", "crash,hang"])
victim("leak", ["victim-leak", "list"])
victim("big-leak", ["victim-leak", "many-stacks", "8192"], env: ["FAULTLINE_LEAK_MAX_GROUPS": "100000"])
victim("oom", ["victim-oom", "slow-leak", "256K", "20"], options: ["--memory-limit", "64M"], env: ["FAULTLINE_MEMORY_PRESSURE": "off"])

let symbolicator = Symbolicator()
let entries = try ReportStore.list(directory: "\(work)/reports", includingSubdirectories: true)
var (items, _) = ReportPage.items(entries, symbolicator: symbolicator)
say("bench-html: \(items.count) real reports: \(items.map(\.report.kind).joined(separator: ", "))")

/// The largest report, symbolicated, as one file (what `report show --json` writes).
let big = items.max { ($0.report.sections["groups"]?.arrayValue?.count ?? 0) < ($1.report.sections["groups"]?.arrayValue?.count ?? 0) }!
let bigFile = "\(work)/big-report.json"
try JSONEncoderFactory.pretty().encode(big.report).write(to: URL(fileURLWithPath: bigFile))
let bigBytes = (try FileManager.default.attributesOfItem(atPath: bigFile)[.size] as? Int) ?? 0

/// 10 000 reports: the real ones again and again, each with an id of its own.
var many: [ReportPage.Item] = []
let small = items.filter { ($0.report.sections["groups"]?.arrayValue?.count ?? 0) < 100 }
for k in 0..<10_000 {
    var item = small[k % small.count]
    item.path = nil
    item.report.id = String(format: "%016llx", UInt64(k) &* 0x9E3779B97F4A7C15)
    item.report.timeUnixNs = (item.report.timeUnixNs ?? 0) + UInt64(k)
    many.append(item)
}

func median(_ v: [Double]) -> Double { let s = v.sorted(); return s.isEmpty ? 0 : s[s.count / 2] }

/// Renders `items` to `name`.html and loads it `runs` times; a load that
/// fails is said and the next page measured.
@MainActor func measure(_ label: String, _ name: String, _ items: [ReportPage.Item], page: ReportPage) throws {
    let t0 = Date()
    let html = page.render(items)
    let renderSeconds = Date().timeIntervalSince(t0)
    let path = "\(work)/\(name).html"
    try Data(html.utf8).write(to: URL(fileURLWithPath: path))
    var load: [Double] = [], layout: [Double] = []
    for _ in 0..<runs {
        guard let t = try? browser.loadTime(path) else { say("\(label): chromium did not load the page within 120 s"); return }
        load.append(t.load)
        layout.append(t.layout)
    }
    say(String(format: "%@: page %.1f MB, rendered in %.2f s; chromium load %.0f ms, load + layout %.0f ms (median of %d; each run %@ ms)",
                 label, Double(html.utf8.count) / 1e6, renderSeconds, median(load), median(layout), runs,
                 layout.map { String(format: "%.0f", $0) }.joined(separator: ", ")))
}

/// The 1-minute load average: the figures below are only worth as much.
func loadAverage() -> String { (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init) ?? "?" }
say("bench-html: load average \(loadAverage()) on \(ProcessInfo.processInfo.activeProcessorCount) CPUs")
let page = ReportPage(title: "bench-html")
try measure("an empty page (the browser's floor)", "empty", [], page: page)
try measure(String(format: "one %.1f MB leak report (%d groups)", Double(bigBytes) / 1e6, big.report.sections["groups"]?.arrayValue?.count ?? 0),
            "big-report", [big], page: page)
try measure("10000 reports in \(Set(many.map { "\($0.report.kind)" }).count) kinds, \(Set(many.compactMap { $0.report.signature?.id }).count) signatures", "many-reports", many, page: page)
say("bench-html: load average \(loadAverage()) at the end")
if let keep { say("bench-html: pages kept in \(keep)") }
