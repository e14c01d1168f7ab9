import Foundation
@testable import FaultlineHarness
import Faultline

/// A fresh directory under /tmp, removed when the value is released.
final class TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/faultline-harness-test-XXXXXX".utf8CString)
        guard let p = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        path = String(cString: p)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Writes an executable script. Not with Foundation's `write(toFile:)`: it
/// opens without O_CLOEXEC, so a child another test spawns meanwhile keeps
/// the file open and running the script fails with ETXTBSY.
func writeScript(_ text: String, to path: String) throws {
    if let problem = OutputLocation.write(Data(text.utf8), to: path) { throw CocoaError(.fileWriteUnknown, userInfo: [NSDebugDescriptionErrorKey: problem]) }
    chmod(path, 0o755)
}

/// The build products next to the test bundle (robust to any --scratch-path).
enum Products {
    static let build = BuildDirectory.ofRunningExecutable()

    /// The path of `name`, or an error saying how to build it.
    static func require(_ name: String) throws -> String {
        guard let p = build.product(name) else {
            throw MissingProduct(description: "\(name) is not built in \(build.path); run `swift build` with the same --scratch-path first")
        }
        return p
    }

    struct MissingProduct: Error, CustomStringConvertible { var description: String }
}
