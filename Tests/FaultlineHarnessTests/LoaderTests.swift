import Foundation
import Testing
@testable import FaultlineHarness

/// The scenario loader: every bad file gets one `FILE:LINE: message` line.
@Suite struct LoaderTests {
    let loader = ScenarioLoader()

    func error(_ yaml: String, file: String = "s.yaml") -> ScenarioLoadError? {
        do {
            _ = try loader.parse(yaml: yaml, file: file)
            return nil
        } catch {
            return error
        }
    }

    @Test func parsesEveryField() throws {
        let s = try loader.parse(yaml: """
            name: crash.example
            description: all fields
            victim: victim-c
            args: [null-deref, "2"]
            inject: [crash, use_after_free]
            mode: linked
            env: {A: "1", B: two}
            timeout: 250ms
            memory_limit: 64M
            requires: [root, "program:sh"]
            expect:
              exit: {signal: segv}
              reports:
                - kind: crash
                  signal: SIGSEGV
                  code: SEGV_MAPERR
                  thread: worker-7
                  frames: [victim_null_deref, main]
                  match:
                    recrash.stage: "running"
                    process.pid: 12
                    crashed_thread.main: true
                    user: null
                    threads: [{name: idler-0}, "x"]
                    quoted: "42"
                  max_detection_ms: 500
              stderr_contains: ["victim: dereferencing NULL"]
              stdout_contains: [out]
            """, file: "s.yaml")
        #expect(s.name == "crash.example")
        #expect(s.source == SourceLocation(file: "s.yaml", line: 1))
        #expect(s.args == ["null-deref", "2"])
        #expect(s.inject == [.crash, .useAfterFree])
        #expect(s.needsMallocShim)
        #expect(s.mode == .linked)
        #expect(s.env == ["A": "1", "B": "two"])
        #expect(s.timeout == 0.25)
        #expect(s.memoryLimit == 64 << 20)
        // memory_limit adds cgroup-memory (memoryLimitImpliesTheCgroupRequirement).
        #expect(s.requires == ["root", "program:sh", "cgroup-memory"])
        #expect(s.expect.exit == .signal(11))
        #expect(s.expect.stderrContains == ["victim: dereferencing NULL"])
        #expect(s.expect.stdoutContains == ["out"])
        let r = try #require(s.expect.reports?.first)
        #expect(r.source.line == 14)
        #expect(r.kind == "crash" && r.signal == "SIGSEGV" && r.code == "SEGV_MAPERR" && r.thread == "worker-7")
        #expect(r.frames == ["victim_null_deref", "main"])
        #expect(r.maxDetectionMs == 500)
        #expect(r.needsSymbols)
        let byPath = Dictionary(uniqueKeysWithValues: r.match.map { ($0.path.description, $0.expected.description) })
        #expect(byPath["recrash.stage"] == "\"running\"")
        #expect(byPath["process.pid"] == "12")
        #expect(byPath["crashed_thread.main"] == "true")
        #expect(byPath["user"] == "null")
        #expect(byPath["threads"] == "[{name: \"idler-0\"}, \"x\"]")
        #expect(byPath["quoted"] == "\"42\"")
    }

    @Test func memoryLimitImpliesTheCgroupRequirement() throws {
        func requires(_ extra: String) throws -> [String] {
            try loader.parse(yaml: "name: a\nvictim: /bin/true\n\(extra)expect: {exit: {code: 0}}\n", file: "s.yaml").requires
        }
        #expect(try requires("memory_limit: 64M\n") == ["cgroup-memory"])
        #expect(try requires("memory_limit: 64M\nrequires: [root]\n") == ["root", "cgroup-memory"])
        // Already asked for (either form): not added again.
        #expect(try requires("memory_limit: 64M\nrequires: [cgroup-memory]\n") == ["cgroup-memory"])
        #expect(try requires("memory_limit: 64M\nrequires: [cgroup-v1-memory]\n") == ["cgroup-v1-memory"])
        // No limit, no cgroup.
        #expect(try requires("requires: [root]\n") == ["root"])
        // A registry without the requirement cannot be asked for it.
        let bare = try ScenarioLoader(requirements: RequirementRegistry())
            .parse(yaml: "name: a\nvictim: /bin/true\nmemory_limit: 64M\nexpect: {exit: {code: 0}}\n", file: "s.yaml")
        #expect(bare.requires == [])
    }

    @Test func defaults() throws {
        let s = try loader.parse(yaml: "name: a\nvictim: /bin/true\nexpect: {exit: {code: 0}}\n", file: "s.yaml")
        #expect(s.inject.isEmpty)
        #expect(s.mode == .preload)
        #expect(s.timeout == Scenario.defaultTimeout)
        #expect(s.memoryLimit == nil)
        #expect(s.expect.reports == nil)
    }

    @Test func unknownKeyNamesFileLineAndSuggestion() {
        let e = error("name: a\nvictim: v\nexpcet:\n  exit: {code: 0}\n", file: "Scenarios/x.yaml")
        #expect(e?.description == "Scenarios/x.yaml:3: unknown key 'expcet' in the scenario; did you mean 'expect'? (known keys: name, description, victim, args, inject, mode, env, timeout, memory_limit, requires, expect, xfail, variants)")
    }

    @Test func unknownKeyInsideAReport() {
        let e = error("""
            name: a
            victim: v
            expect:
              reports:
                - kind: crash
                  sginal: SIGSEGV
            """)
        #expect(e?.location.line == 6)
        #expect(e?.message.hasPrefix("unknown key 'sginal' in a report expectation; did you mean 'signal'?") == true)
    }

    @Test func wrongTypes() {
        let args = error("name: a\nvictim: v\nargs: null-deref\nexpect: {no_reports: true}\n")
        #expect(args?.description == "s.yaml:3: args must be a list, e.g. args: [null-deref]; found 'null-deref'")
        let code = error("name: a\nvictim: v\nexpect:\n  exit: {code: abc}\n")
        #expect(code?.description == "s.yaml:4: exit code must be a number from 0 to 255, found 'abc'")
        let reports = error("name: a\nvictim: v\nexpect:\n  reports: {kind: crash}\n")
        #expect(reports?.location.line == 4)
        #expect(reports?.message.hasPrefix("reports must be a list") == true)
        let flag = error("name: a\nvictim: v\nexpect:\n  no_reports: yes please\n")
        #expect(flag?.description == "s.yaml:4: no_reports must be true or false, found 'yes please'")
    }

    @Test func badDurationAndSize() {
        let t = error("name: a\nvictim: v\ntimeout: 2 minutes\nexpect: {no_reports: true}\n")
        #expect(t?.description == "s.yaml:3: timeout '2 minutes' is not a duration; write e.g. 250ms, 2s, 1.5s or a number of seconds")
        let m = error("name: a\nvictim: v\nmemory_limit: 64X\nexpect: {no_reports: true}\n")
        #expect(m?.description == "s.yaml:3: memory_limit '64X' is not a size; write e.g. 64M, 1G, 512K or a number of bytes")
    }

    @Test func missingVictimNameOrExpect() {
        #expect(error("name: a\nexpect: {no_reports: true}\n")?.description
            == "s.yaml:1: scenario 'a' has no victim; add victim: PROGRAM (a built product, an absolute path or a program on PATH)")
        #expect(error("\n\nvictim: v\nexpect: {no_reports: true}\n")?.description
            == "s.yaml:3: no name; add e.g. name: crash.null-deref (unique in the suite)")
        #expect(error("name: a\nvictim: v\n")?.message.hasPrefix("scenario 'a' has no expect") == true)
        #expect(error("")?.description == "s.yaml:1: empty scenario file; it needs at least name, victim and expect")
    }

    /// A timeout under a millisecond killed the victim at once ("expected
    /// the victim to end within 0ms").
    @Test func subMillisecondTimeoutIsRefused() {
        #expect(error("name: a\nvictim: v\ntimeout: 0.0001ms\nexpect: {no_reports: true}\n")?.description
            == "s.yaml:3: timeout '0.0001ms' is shorter than 1ms, too short for any victim; write e.g. 250ms or 2s")
        #expect(error("name: a\nvictim: v\ntimeout: 1ms\nexpect: {no_reports: true}\n") == nil)
    }

    /// A NUL cut arguments and environment entries short without a word.
    @Test func nulCharactersAreRefused() {
        #expect(error("name: a\nvictim: v\nargs: [\"ab\\0c\"]\nexpect: {no_reports: true}\n")?.description
            == "s.yaml:3: each entry of args 'ab\\0c' contains a NUL character, which cannot be passed to a program; remove it")
        #expect(error("name: a\nvictim: v\nenv: {\"A\\0B\": x}\nexpect: {no_reports: true}\n")?.description
            == "s.yaml:3: a key in env 'A\\0B' contains a NUL character, which cannot be passed to a program; remove it")
    }

    /// Keys that check nothing are no expectation: these scenarios passed
    /// whatever the victim did.
    @Test(arguments: ["  no_reports: false\n", "  stderr_contains: []\n", "  stdout_contains: []\n  no_reports: false\n", "  stderr_lacks: []\n"])
    func expectThatChecksNothingIsRefused(expect: String) {
        #expect(error("name: a\nvictim: v\nexpect:\n" + expect)?.description
            == "s.yaml:4: expect checks nothing (no_reports: false and empty lists check nothing); say what must happen (exit, reports, no_reports: true, stderr_contains…)")
    }

    /// Files named like scenarios that are none: a huge file is refused by
    /// its size before it is read (a 3 GB one took 12 GB of memory and over
    /// a minute), a FIFO without waiting for a writer.
    @Test func hugeFilesAndFIFOsAreRefusedUnread() throws {
        let dir = try TemporaryDirectory()
        let huge = dir.path + "/huge.yaml"
        #expect(FileManager.default.createFile(atPath: huge, contents: nil))
        #expect(truncate(huge, 3 << 30) == 0)  // sparse: no disk used
        #expect(mkfifo(dir.path + "/pipe.yml", 0o600) == 0)
        #expect(ScenarioSuite.load(directory: dir.path).errors.map(\.description) == [
            "\(dir.path)/huge.yaml:1: 3221225472 bytes is larger than any scenario file (1 MiB); it is not one, move it out of the scenarios folder",
            "\(dir.path)/pipe.yml:1: not a regular file (a FIFO, socket or device); scenario files are plain files, move it out of the scenarios folder",
        ])
    }

    /// A folder named `x.yaml` is named as a folder, not as a file that may
    /// not exist or be unreadable.
    @Test func folderNamedLikeAScenarioFile() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.path + "/old.yaml", withIntermediateDirectories: true)
        #expect(ScenarioSuite.load(directory: dir.path).errors.map(\.description)
            == ["\(dir.path)/old.yaml:1: a folder named like a scenario file; rename it so it does not end in .yaml or .yml (scenario files are the files that do)"])
    }

    @Test func badValues() {
        #expect(error("name: a\nvictim: v\ninject: [crash, heap]\nexpect: {no_reports: true}\n")?.description
            == "s.yaml:3: unknown detector 'heap' in inject; use one of: crash, cxx_exception, hang, memory, cpu, fds, threads, launch, use_after_free, leaks, shim")
        #expect(error("name: a\nvictim: v\nmode: injected\nexpect: {no_reports: true}\n")?.description
            == "s.yaml:3: mode must be preload or linked, found 'injected'")
        #expect(error("name: a\nvictim: v\nrequires: [gpu]\nexpect: {no_reports: true}\n")?.message.hasPrefix("unknown requirement 'gpu'; known:") == true)
        #expect(error("name: a\nvictim: v\nrequires: [program]\nexpect: {no_reports: true}\n")?.description
            == "s.yaml:3: requirement 'program' needs an argument: program:NAME")
        #expect(error("name: a\nvictim: v\nexpect:\n  exit: {signal: SIGFOO}\n")?.description
            == "s.yaml:4: unknown signal 'SIGFOO'; write a name such as SIGSEGV or SIGABRT")
        #expect(error("name: a\nvictim: v\nexpect:\n  exit: {code: 0, signal: SIGSEGV}\n")?.description
            == "s.yaml:4: exit needs exactly one of {code: N} or {signal: NAME}")
        #expect(error("name: a b\nvictim: v\nexpect: {no_reports: true}\n")?.location.line == 1)
        #expect(error("name: a\nvictim: v\nexpect:\n  reports:\n    - match: {\"a..b\": 1}\n")?.description
            == "s.yaml:5: bad path 'a..b': empty key in match; write a dotted path such as recrash.stage or threads[0].name")
        #expect(error("name: a\nvictim: v\nexpect:\n  no_reports: true\n  reports: [{kind: crash}]\n")?.location.line == 4)
    }

    @Test func yamlSyntaxErrorsNameTheLine() {
        let e = error("name: a\nvictim: v\nargs: [unclosed\nexpect: {no_reports: true}\n")
        #expect(e?.location.file == "s.yaml")
        #expect(e?.message.hasPrefix("YAML syntax error:") == true)
        #expect(e?.description.contains("\n") == false)
        let dup = error("name: a\nvictim: v\nname: b\nexpect: {no_reports: true}\n")
        #expect(dup?.description == "s.yaml:1: duplicate key 'name' (first given on this line); keep one")
    }

    @Test func duplicateNamesAcrossFilesNameBoth() throws {
        let dir = try TemporaryDirectory()
        // Two paths that give the same name: `sub/b.yaml` and `sub.b.yaml`.
        try "name: sub.b\nvictim: v\nexpect: {no_reports: true}\n".write(toFile: dir.path + "/sub.b.yaml", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: dir.path + "/sub", withIntermediateDirectories: true)
        try "# second\nname: sub.b\nvictim: v\nexpect: {no_reports: true}\n".write(toFile: dir.path + "/sub/b.yaml", atomically: true, encoding: .utf8)
        try "name: c\nvictim: v\nbogus: 1\nexpect: {no_reports: true}\n".write(toFile: dir.path + "/c.yml", atomically: true, encoding: .utf8)
        let suite = ScenarioSuite.load(directory: dir.path)
        #expect(suite.scenarios.map(\.name) == ["sub.b", "sub.b"])
        let lines = suite.errors.map(\.description)
        #expect(lines.contains("\(dir.path)/sub/b.yaml:2: scenario name 'sub.b' is already used by \(dir.path)/sub.b.yaml:1; rename one of them"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("\(dir.path)/c.yml:3: unknown key 'bogus'") })
        #expect(suite.errors.count == 2)
    }

    @Test func theShippedSuiteLoads() throws {
        let root = try #require(BuildDirectory.ofRunningExecutable().packageRoot())
        let suite = ScenarioSuite.load(directory: root + "/Scenarios")
        #expect(suite.errors.map(\.description) == [])
        #expect(suite.scenarios.count >= 19)
    }

    @Test func units() {
        #expect(Units.seconds("250ms") == 0.25)
        #expect(Units.seconds("2s") == 2)
        #expect(Units.seconds("1.5s") == 1.5)
        #expect(Units.seconds("3") == 3)
        #expect(Units.seconds("2m") == nil)
        #expect(Units.seconds("-1s") == nil)
        #expect(Units.bytes("64M") == 64 << 20)
        #expect(Units.bytes("1G") == 1 << 30)
        #expect(Units.bytes("512K") == 512 << 10)
        #expect(Units.bytes("4096") == 4096)
        #expect(Units.bytes("1.5K") == 1536)
        #expect(Units.bytes("12Q") == nil)
        #expect(Units.describe(bytes: 64 << 20) == "64M")
        #expect(Units.describe(seconds: 0.25) == "250ms")
        #expect(Units.describe(seconds: 1) == "1s")
    }

    @Test func jsonPaths() throws {
        let p = try JSONPath.parse("threads[1].frames[0].pc").get()
        #expect(p.components == [.key("threads"), .index(1), .key("frames"), .index(0), .key("pc")])
        for bad in ["", "a.", ".a", "a[", "a[x]", "a]", "a[0]b", "[0]"] {
            #expect(throws: PathSyntaxError.self, "\(bad)") { try JSONPath.parse(bad).get() }
        }
    }
}
