import Faultline
import Foundation
import Testing
@testable import FaultlineHarness

/// `variants:` makes one file state a case run several ways: one scenario
/// per entry, named `BASE[VARIANT]`, `${VAR}` filled in per entry.
@Suite struct ScenarioVariantTests {
    private func all(_ yaml: String, pathName: String? = "crash.api") throws(ScenarioLoadError) -> [Scenario] {
        try ScenarioLoader().parseAll(yaml: yaml, file: "s.yaml", pathName: pathName)
    }

    private func loadError(_ yaml: String) -> String? {
        do {
            _ = try all(yaml)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func eachNameInTheListIsItsOwnScenario() throws {
        let list = try all("""
            victim: victim-c
            args: [crash-beside-signal-api, "${variant}"]
            variants:
              - signal
              - bsd_signal
            expect:
              stderr_contains:
                - "victim: ${variant} reads back its own handler"
            """)
        #expect(list.map(\.name) == ["crash.api[signal]", "crash.api[bsd_signal]"])
        #expect(list.map(\.args) == [["crash-beside-signal-api", "signal"], ["crash-beside-signal-api", "bsd_signal"]])
        #expect(list.map(\.expect.stderrContains) == [["victim: signal reads back its own handler"],
                                                       ["victim: bsd_signal reads back its own handler"]])
        // Each is placed at its own entry, where a duplicate name is reported.
        #expect(list.map(\.source.line) == [4, 5])
    }

    @Test func mappingEntriesDefineVariablesAndPlainValuesKeepTheirType() throws {
        let list = try all("""
            name: crash.api
            victim: /bin/sh
            args: [-c, "exit ${code}"]
            variants:
              - {name: three, code: "3"}
              - name: four
                code: "4"
            expect:
              exit:
                code: ${code}
            """)
        #expect(list.map(\.name) == ["crash.api[three]", "crash.api[four]"])
        #expect(list.map(\.args[1]) == ["exit 3", "exit 4"])
        #expect(list.map(\.expect.exit) == [.code(3), .code(4)])
    }

    @Test func withoutVariantsADollarBraceStaysText() throws {
        let s = try ScenarioLoader().parse(yaml: "victim: /bin/sh\nargs: [-c, 'echo ${HOME}']\nexpect: {exit: {code: 0}}\n",
                                           file: "s.yaml", pathName: "a")
        #expect(s.args == ["-c", "echo ${HOME}"])
        #expect(s.name == "a")
    }

    @Test func aDoubledDollarIsALiteralDollarBrace() throws {
        let list = try all("victim: /bin/sh\nargs: [-c, 'echo $${HOME} ${variant}']\nvariants: [x]\nexpect: {exit: {code: 0}}\n")
        #expect(list.first?.args == ["-c", "echo ${HOME} x"])
    }

    @Test func parseRefusesAFileWithVariantsAndLoadAllReadsIt() throws {
        let yaml = "victim: v\nvariants: [a, b]\nexpect: {no_reports: true}\n"
        #expect(throws: ScenarioLoadError.self) { try ScenarioLoader().parse(yaml: yaml, file: "s.yaml", pathName: "p") }
        let dir = try TemporaryDirectory()
        try writeScript(yaml, to: dir.path + "/p.yaml")
        #expect(try ScenarioLoader().loadAll(path: dir.path + "/p.yaml", pathName: "p").map(\.name) == ["p[a]", "p[b]"])
    }

    /// Every bad `variants` value is one line naming the file and its line.
    @Test func badVariantsAreOneLineErrorsAtTheirLine() {
        let head = "victim: v\nexpect: {no_reports: true}\n"
        let cases: [(String, String)] = [
            ("variants: signal\n",
             "s.yaml:3: variants must be a list of variant names or {name: …, VAR: value} mappings, found 'signal'"),
            ("variants: []\n", "s.yaml:3: variants is empty; list at least one variant, or drop the key"),
            ("variants:\n  - a\n  - 'b c'\n",
             "s.yaml:5: variant name 'b c' may only use letters, digits, '.', '_' and '-' (it names a folder); rename it"),
            ("variants:\n  - a\n  - b\n  - a\n", "s.yaml:6: variant 'a' is listed twice (first on line 4); rename or drop one"),
            ("variants:\n  - {code: 3}\n",
             "s.yaml:4: a variant given as a mapping needs name: (the text in brackets after the file's name)"),
            ("variants:\n  - {name: a, variant: b}\n",
             "s.yaml:4: 'variant' is the variant's own name (${variant}); give it with name: and call the variable something else"),
            ("variants:\n  - {name: a, 2x: b}\n",
             "s.yaml:4: variable name '2x' in a variant may only use letters, digits and '_' (not first); rename it"),
            ("variants:\n  - [a]\n", "s.yaml:4: each variant must be a name or a {name: …, VAR: value} mapping, found a list"),
            ("variants:\n  - ''\n", "s.yaml:4: a variant name is empty; give it a value"),
        ]
        for (tail, expected) in cases {
            #expect(loadError(head + tail) == expected, "\(tail)")
        }
    }

    @Test func anUndefinedVariableNamesTheVariantAndItsLine() {
        let yaml = """
            victim: v
            args: ["${api}"]
            variants:
              - {name: a, api: signal}
              - b
            expect: {no_reports: true}
            """
        #expect(loadError(yaml) == "s.yaml:2: ${api} is not defined in variant 'b' (line 5); define it there, "
            + "or write $${api} for the literal text (defined: ${variant}) (in variant 'b', line 5)")
        #expect(loadError("victim: v\nargs: ['${variant']\nvariants: [a]\nexpect: {no_reports: true}\n")?
            .hasPrefix("s.yaml:2: '${' without a closing '}' in '${variant'") == true)
    }

    @Test func aVariantNameTooLongForAFolderIsRefused() {
        let e = loadError("victim: v\nvariants: [\(String(repeating: "x", count: 125))]\nexpect: {no_reports: true}\n")
        #expect(e?.hasPrefix("s.yaml:2: scenario name 'crash.api[xxx") == true, "\(e ?? "accepted")")
        #expect(e?.contains("is longer than 128 characters") == true)
    }

    @Test func theSuiteListsVariantsSeparatelyAndFindsDuplicates() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.path + "/crash", withIntermediateDirectories: true)
        try writeScript("victim: v\nvariants: [a, b]\nexpect: {no_reports: true}\n", to: dir.path + "/crash/api.yaml")
        try writeScript("name: 'crash.api[b]'\nvictim: v\nexpect: {no_reports: true}\n", to: dir.path + "/crash/other.yaml")
        let suite = ScenarioSuite.load(directory: dir.path)
        #expect(suite.scenarios.map(\.name) == ["crash.api[a]", "crash.api[b]"])
        #expect(suite.filtered(["api[b"]).map(\.name) == ["crash.api[b]"])
        #expect(suite.filtered(["crash.api"]).count == 2)
        // A bracket is refused in a name: line, so a file cannot take a variant's name.
        #expect(suite.errors.map(\.description) == [
            "\(dir.path)/crash/other.yaml:1: name 'crash.api[b]' may only use letters, digits, '.', '_' and '-' (it names a folder); rename it",
        ])
    }

    /// Each variant runs on its own and gets its own verdict and JUnit case.
    @Test func variantsRunAndAreReportedSeparately() throws {
        let dir = try TemporaryDirectory()
        try writeScript("""
            victim: /bin/sh
            args: [-c, "exit ${code}"]
            variants:
              - {name: ok, code: "0"}
              - {name: bad, code: "1"}
            expect: {exit: {code: 0}}
            """, to: dir.path + "/exits.yaml")
        let suite = ScenarioSuite.load(directory: dir.path)
        #expect(suite.errors.isEmpty, "\(suite.errors)")
        let options = RunOptions(buildDirectory: Products.build, artifactsRoot: dir.path + "/artifacts", jobs: 1)
        let result = SuiteRunner(options: options).run(suite.scenarios)
        #expect(result.scenarios.map(\.scenario.name) == ["exits[ok]", "exits[bad]"])
        #expect(result.scenarios.map(\.verdict) == [.pass, .fail])
        let xml = JUnitWriter.render(result)
        #expect(xml.contains("name=\"exits[ok]\""))
        #expect(xml.contains("name=\"exits[bad]\""))
        #expect(FileManager.default.fileExists(atPath: result.artifactsDirectory + "/exits[bad]"), "\(result.artifactsDirectory)")
    }
}
