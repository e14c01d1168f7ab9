import Faultline
import Foundation

/// Copies of build products in a fresh world-readable folder under /tmp, for
/// tests that run them as another user (`nobody`). A clone in a 0700 folder
/// (`mktemp -d`, root's home on Debian) hides its `.build` from that user,
/// who then cannot even execute the victim (exit 126): a failure that
/// depended on where the clone lives.
final class ReachableProducts {
    /// The folder holding the copies (mode 0755).
    let directory: String

    /// Copies `names` (build products: victims, preload libraries) there, mode 0755.
    init(_ names: [String]) throws {
        var template = Array("/tmp/faultline-reachable-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { throw CocoaError(.fileWriteUnknown) }
        directory = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        chmod(directory, 0o755)
        for name in names {
            let copy = "\(directory)/\(name)"
            // Written through a close-on-exec temporary and renamed (ETXTBSY otherwise).
            let bytes = try Data(contentsOf: URL(fileURLWithPath: try BuildProducts.path(name)))
            if let problem = OutputLocation.write(bytes, to: copy) {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSDebugDescriptionErrorKey: problem])
            }
            chmod(copy, 0o755)
        }
    }

    /// The copy of `name`.
    func path(_ name: String) -> String { "\(directory)/\(name)" }

    deinit { try? FileManager.default.removeItem(atPath: directory) }
}
