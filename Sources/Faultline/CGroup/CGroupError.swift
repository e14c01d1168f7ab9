#if canImport(Glibc)
import Glibc
#endif

/// A cgroup operation that failed, in one line naming the file or
/// directory, the reason and, where there is one, what to do.
public struct CGroupError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The whole message.
    public var description: String
    /// `errno` of the failed call, 0 when the failure was not a system call.
    public var code: Int32

    /// A message with no system error behind it.
    public init(_ description: String, code: Int32 = 0) {
        self.description = description
        self.code = code
    }

    /// "`action` `path`: strerror(errno)", plus a hint for permission errors.
    static func system(_ action: String, _ path: String, errno e: Int32) -> CGroupError {
        var text = "cannot \(action) \(path): \(String(cString: strerror(e)))"
        if e == EACCES || e == EPERM || e == EROFS {
            text += "; creating memory cgroups needs root (or a delegated cgroup) and a writable cgroup mount"
        }
        return CGroupError(text, code: e)
    }
}
