import ArgumentParser
import Faultline
import Foundation

/// `--no-symbolicate`, one line for every report command that has it
/// (`report show`, `groups`, `export`, `upload`).
struct SymbolicateOption: ParsableArguments {
    @Flag(help: "Do not run the symbolizer: frames keep their addresses only, and a report with no stored signature is signed by image and offset.")
    var noSymbolicate = false

    /// True unless `--no-symbolicate`.
    var symbolicate: Bool { !noSymbolicate }
}

/// `--signature-rules FILE`, one line for `report show`, `export` and
/// `upload`. (`report groups` has none: its index and the signatures
/// `exec` stored are made under the built-in rules.)
struct SignatureRulesOption: ParsableArguments {
    @Option(help: ArgumentHelp("A file of signature rules to add to the built-in ones (docs/export.md).", valueName: "file"))
    var signatureRules: String?

    /// The rules the option names, nil when not given; one line and
    /// status 64 when the file cannot be read.
    func rules() throws -> SignatureRules? { try ReportInputs.rules(signatureRules) }
}

/// What `report export` and `report upload` read, gathered with the same
/// lines: the report files and folders, `--no-symbolicate` and
/// `--signature-rules`.
struct ReportInputOptions: ParsableArguments {
    @OptionGroup var symbolication: SymbolicateOption
    @OptionGroup var signature: SignatureRulesOption

    @Argument(help: "Report files or folders (default ./faultline-reports).")
    var inputs: [String] = []

    /// The reports, loaded, symbolicated and signed (`ReportInputs.load`).
    func load() throws -> [(path: String, report: Report)] {
        try ReportInputs.load(inputs, symbolicate: symbolication.symbolicate, rules: try signature.rules())
    }
}

/// The reports named on a command line (`report export`, `report upload`):
/// each FILE, and every report under each DIR at any depth, loaded and
/// symbolicated (a stored signature kept). Files that are not reports are
/// one line each on stderr and left out.
enum ReportInputs {
    /// Loads `args` (an empty list: ./faultline-reports); throws
    /// `ExitCode(notFoundStatus)` after one line when an argument does not exist.
    static func load(_ args: [String], symbolicate: Bool, rules: SignatureRules?) throws -> [(path: String, report: Report)] {
        var paths: [String] = []
        for arg in args.isEmpty ? [RunReportDirectory.defaultParent] : args {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: arg, isDirectory: &isDir) else {
                ReportCommand.stderr("faultline: \(arg): no such file or directory; give report files or folders")
                throw ExitCode(ReportCommand.notFoundStatus)
            }
            if isDir.boolValue {
                do throws(ReportTree.ReadError) { paths += try ReportTree.files(under: arg).map(\.path) }
                catch { ReportCommand.stderr("faultline: \(error)"); throw ExitCode(ReportCommand.notFoundStatus) }
            } else {
                paths.append(arg)
            }
        }
        var symbolicator = symbolicate ? Symbolicator() : nil
        symbolicator?.signatureRules = rules
        var out: [(String, Report)] = []
        for entry in ReportStore.load(paths: paths) {
            switch entry.result {
            case .success(let r):
                var report = symbolicator?.symbolicate(r) ?? r
                if report.signature == nil || (!symbolicate && rules != nil) {
                    report.signature = SignatureBuilder(rules: rules ?? .standard).signature(of: report)
                }
                out.append((entry.path, report))
            case .failure(let e):
                ReportCommand.stderr("faultline: skipped \(e)")
            }
        }
        return out
    }

    /// `--signature-rules FILE` read (the standard rules plus the file's),
    /// nil when not given; one line and status 64 when it cannot be read.
    static func rules(_ path: String?) throws -> SignatureRules? {
        guard let path else { return nil }
        do { return try SignatureRules.standard(extendedWith: path) }
        catch { ReportCommand.stderr("faultline: \(error)"); throw ExitCode(64) }
    }
}
