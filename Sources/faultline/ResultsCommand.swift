import ArgumentParser
import Faultline
import FaultlineHarness
import Foundation

/// `faultline results merge A.json B.json …`: the `--json` results of a
/// suite's shards as one run's table, JUnit and JSON.
struct ResultsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "results",
        abstract: "Work with the --json results of faultline run.",
        subcommands: [Merge.self]
    )

    /// `faultline results merge`.
    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge",
            abstract: "Merge the --json results of every shard into one table, JUnit and JSON.",
            discussion: """
                Each file names the whole suite and its shard, so a scenario in no file or in two \
                is an error naming it. Exit status: 0 when no scenario failed, 1 when some did \
                (FLAKY too, unless --flaky-ok), 2 for files that do not merge, 73 when an output \
                cannot be written. See docs/runner.md.
                """
        )

        @Argument(help: ArgumentHelp("The --json files of the shards.", valueName: "results.json"))
        var files: [String]

        @OptionGroup var results: ResultsFileOptions

        @Option(help: ArgumentHelp("Add the shards' measured durations to this timings file (for the next split).", valueName: "file"))
        var timings: String?

        @Flag(help: "FLAKY scenarios do not fail the merge.")
        var flakyOk = false

        func validate() throws {
            if files.isEmpty { throw ValidationError("no results files; pass the --json file of every shard") }
        }

        func run() throws {
            exitUnlessWritable(results.files + [("--timings", timings)])
            let merged: ResultsDocument
            do {
                merged = try ResultsMerge.merge(files: files)
            } catch {
                Console.err("faultline: \(OneLine.escaped(error.description))\n")
                throw ExitCode(2)
            }
            Console.out(ConsoleSummary.render(merged))
            try results.write(merged)
            if let timings, let why = ScenarioTimings.update(timings, with: .measured(merged)) { exitCannotWrite(why) }
            if merged.hasFailures(flakyOK: flakyOk) { throw ExitCode(1) }
        }
    }
}
