@testable import Faultline
import FaultlineHarness
import Foundation
import Testing

/// `faultline exec --html` pages of real victims' runs, loaded by headless
/// Chromium: the DOM it built has each view with the run's own facts in
/// it, and a screenshot of each page is kept (`HTMLPageRuns.artifacts`).
@Suite(.enabled(if: HeadlessChromium.missing == nil, "SKIP: \(HeadlessChromium.missing ?? "")"))
struct ReportPageBrowserTests {
    @Test func aHangPageDrawsTheSamplesAsAFlameGraphWithTheCulpritStackMarked() throws {
        let page = try HTMLPageRuns.load("hang", victim: "victim-hang", ["spin-recover", "3000"], options: ["--detectors", "crash,hang"])
        let graphs = HTMLPageRuns.elements("svg", classes: ["flame"], in: page.dom)
        #expect(graphs.count == 2, "a flame graph for the hang and one for hang_recovered: \(page.run.stderr.suffix(1500))")
        let hang = try #require(graphs.first)
        // The culprit stack, root to leaf, is the boxes marked culprit.
        let culprit = HTMLPageRuns.elements("g", classes: ["frame", "culprit"], in: hang)
        for function in ["main", "cmd_spin_recover", "victim_recalculate_totals", "victim_spin"] {
            #expect(culprit.contains { $0.contains("<title>\(function) at ") }, "\(function) not in the culprit stack: \(culprit)")
        }
        // Labelled with function and file:line where the box is wide enough.
        #expect(hang.contains(">victim_spin main.c:"), "\(hang.prefix(3000))")
        // Every sample is in the graph: the root box holds them all (how
        // many the ring kept depends on the machine's load).
        let root = try #require(HTMLPageRuns.elements("g", classes: ["frame"], in: hang).first)
        let counts = try #require(root.firstMatch(of: /(\d+) of (\d+) samples \(100%\)/), "\(root)")
        #expect(counts.1 == counts.2 && Int(counts.1) ?? 0 > 0, "\(root)")
        #expect(!page.dom.contains("<script"))
    }

    @Test(.enabled(if: CGroupHost.memoryProblem == nil, "SKIP: \(CGroupHost.memoryProblem ?? "")"))
    func anOOMPageDrawsUsageAgainstTheLimitWithTheBreadcrumbsAndTheKill() throws {
        let page = try HTMLPageRuns.load("oom", victim: "victim-oom", ["slow-leak", "256K", "20"], options: ["--memory-limit", "64M"],
                                         environment: ["FAULTLINE_MEMORY_PRESSURE": "off"])
        let timeline = try #require(HTMLPageRuns.elements("svg", classes: ["memory"], in: page.dom).first, "\(page.run.stderr.suffix(1500))")
        let limit = try #require(HTMLPageRuns.elements("g", classes: ["limit"], in: timeline).first)
        #expect(limit.contains("<line class=\"limit\""))
        #expect(limit.contains("limit 64 MiB"), "\(limit)")
        let crumbs = HTMLPageRuns.elements("g", classes: ["crumb"], in: timeline)
        for pct in ["50%", "75%", "90%", "95%"] { #expect(crumbs.contains { $0.contains(">\(pct)</text>") }, "\(crumbs)") }
        let kill = try #require(HTMLPageRuns.elements("g", classes: ["kill"], in: timeline).first)
        #expect(kill.contains("OOM kill"))
        // The heaviest live stack at the last breadcrumb is the victim's leak.
        let heaviest = try #require(HTMLPageRuns.elements("li", classes: ["group", "live"], in: page.dom).first)
        #expect(heaviest.contains("victim_malloc_chunk"), "\(heaviest.prefix(1500))")
    }

    @Test func aLeakPageShowsTheGroupsBySizeDefinitelyLostFirstWithTheirStacks() throws {
        let page = try HTMLPageRuns.load("leak", victim: "victim-leak", ["list"])
        let groups = HTMLPageRuns.elements("li", classes: ["group"], in: page.dom)
        #expect(groups.count == 2, "\(page.run.stderr.suffix(1500))")
        let first = try #require(groups.first)
        #expect(first.contains("class=\"group definitely_lost\""))
        #expect(first.contains("in 1 block(s) definitely lost at make_list"), "\(first.prefix(800))")
        #expect(groups.last?.contains("432 bytes in 9 block(s) indirectly lost") == true)
        // The stack, collapsed to the program's frames, names the allocation site.
        let stack = try #require(HTMLPageRuns.elements("pre", classes: ["frames", "program"], in: first).first)
        #expect(stack.contains("<span class=\"fn\">make_list</span>"), "\(stack)")
        // The bars are drawn to scale: 432 bytes is the largest, 48 a ninth of it.
        #expect(groups.last?.contains("style=\"width:100%\"") == true)
        #expect(first.contains("style=\"width:11.1%\""), "\(first.prefix(400))")
    }

    @Test func aCrashPageShowsTheProgramsFramesAndTheWholeStackBehindDetails() throws {
        let page = try HTMLPageRuns.load("crash", victim: "victim-c", ["crash-with-threads"])
        let section = try #require(HTMLPageRuns.elements("section", classes: ["report", "kind-crash"], in: page.dom).first,
                                   "\(page.run.stderr.suffix(1500))")
        #expect(section.contains("signal: SIGSEGV (11), SEGV_MAPERR"))
        let stacks = HTMLPageRuns.elements("div", classes: ["stack"], in: section)
        let crashed = try #require(stacks.first)
        let program = try #require(HTMLPageRuns.elements("pre", classes: ["frames", "program"], in: crashed).first)
        #expect(program.contains("<span class=\"fn\">victim_null_deref</span>"))
        #expect(!program.contains("__libc_start_call_main"), "the collapsed stack has only the program's frames")
        #expect(program.contains("frames in libc.so.6"))
        let all = try #require(HTMLPageRuns.elements("details", classes: ["all"], in: crashed).first)
        #expect(all.contains("__libc_start_call_main"))
        // The group: the report's signature, counted in the summary.
        let summary = try #require(HTMLPageRuns.elements("table", classes: ["groups"], in: page.dom).first)
        #expect(summary.contains("<td class=\"fn\">crash SIGSEGV | victim_null_deref"), "the group is the signature: \(summary)")
        // The three idlers are behind a <details> of their own.
        #expect(section.contains("3 other threads"))
    }

    @Test func aDeadlockPageDrawsTheCycleOfThreadsAndLocks() throws {
        let page = try HTMLPageRuns.load("deadlock", victim: "victim-hang", ["abba"], options: ["--detectors", "crash,hang"])
        let graph = try #require(HTMLPageRuns.elements("svg", classes: ["waits"], in: page.dom).first, "\(page.run.stderr.suffix(1500))")
        let threads = HTMLPageRuns.elements("g", classes: ["thread"], in: graph), locks = HTMLPageRuns.elements("g", classes: ["lock"], in: graph)
        #expect(threads.count == 2 && locks.count == 2, "\(graph)")
        #expect(threads.contains { $0.contains("abba-worker") } && threads.contains { $0.contains("victim-hang") })
        #expect(locks.allSatisfy { $0.contains(">mutex</text>") })
        #expect(HTMLPageRuns.elements("g", classes: ["edge", "waits"], in: graph).count == 2)
        #expect(HTMLPageRuns.elements("g", classes: ["edge", "holds"], in: graph).count == 2)
    }

    @Test func repeatedReportsAreOneDrawnSectionAndOneRowForEachOther() throws {
        let page = try HTMLPageRuns.load("repeats", victim: "victim-heap", ["double-free-repeated"],
                                         environment: ["FAULTLINE_HALT_ON_ERROR": "0", "FAULTLINE_MAX_HEAP_REPORTS": "20"])
        #expect(page.reports.count == 20, "\(page.run.stderr.suffix(1500))")
        let groups = HTMLPageRuns.elements("section", classes: ["group"], in: page.dom)
        #expect(groups.count == 1, "one signature, one group")
        let group = try #require(groups.first)
        #expect(group.contains("<span class=\"n\">20 reports</span>"))
        // The first report is drawn, with its stacks; the 19 others are rows.
        let drawn = HTMLPageRuns.elements("section", classes: ["report"], in: group)
        #expect(drawn.count == 1)
        #expect(drawn.first?.contains("<span class=\"fn\">victim_free_twice</span>") == true, "\(drawn.first?.prefix(3000) ?? "")")
        let rows = try #require(HTMLPageRuns.elements("pre", classes: ["repeats"], in: group).first)
        let lines = rows.split(separator: "\n").filter { $0.contains(".json") }
        #expect(lines.count == 19, "\(rows.prefix(2000))")
        // Every file is on the page once: the drawn one in its header, the others in a row each.
        for file in page.reports {
            let inRows = lines.filter { $0.contains(file) }.count
            let inHeader = drawn.first?.contains(file) == true ? 1 : 0
            #expect(inRows + inHeader == 1, "\(file): \(inRows) row(s), \(inHeader) header")
        }
        // Numbered on from the drawn one, in time order.
        let numbers = lines.map { String($0.replacingOccurrences(of: "<pre class=\"repeats\">", with: "").prefix { $0 != "." }) }
        #expect(numbers == (2...20).map(String.init), "\(numbers)")
        let summary = try #require(HTMLPageRuns.elements("table", classes: ["groups"], in: page.dom).first)
        #expect(summary.contains("<td class=\"n\">20</td><td>double_free</td>"), "\(summary)")
    }
}
