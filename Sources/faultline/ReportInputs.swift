import ArgumentParser
import Faultline
import Foundation

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
