import Faultline
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a finished process left.
struct Finished {
    /// Exit code, or the signal number when `signaled`.
    var status: Int32
    var signaled: Bool
    var stdout: String
    var stderr: String
}

/// Runs a program to completion as a shell would (through
/// `ChildProcess.spawn`: empty signal mask, default dispositions — children
/// of Foundation's `Process` inherit a mask that blocks the agent's sampling
/// signal), capturing stdout and stderr.
func runProgram(_ path: String, _ args: [String], environment: [String: String] = [:],
                directory: String? = nil) throws -> Finished {
    var env = ProcessInfo.processInfo.environment
    for (k, v) in environment { env[k] = v }
    // Victims carry the Swift runtime; its backtracer would add its own report.
    env["SWIFT_BACKTRACE"] = env["SWIFT_BACKTRACE"] ?? "enable=no"
    // Close-on-exec pipes: a child another test starts at the same moment
    // must not inherit our write ends (it would keep our reads open).
    let out = try CloexecPipe(), err = try CloexecPipe(), input = FileHandle(forReadingAtPath: "/dev/null")!
    let pid = try ChildProcess.spawn(path, arguments: [path] + args, environment: env,
                                     stdin: input.fileDescriptor, stdout: out.write.fileDescriptor,
                                     stderr: err.write.fileDescriptor, directory: directory)
    try out.write.close()
    try err.write.close()
    // Read both pipes concurrently so neither fills up.
    let errData = LockedData()
    let reader = Thread { errData.set(err.read.readDataToEndOfFile()) }
    reader.start()
    let outData = out.read.readDataToEndOfFile()
    let end = ChildProcess.wait(pid)
    while !errData.done { Thread.sleep(forTimeInterval: 0.005) }
    var status: Int32 = 0, signaled = false
    switch end {
    case .exited(let c): status = c
    case .signaled(let s): status = s; signaled = true
    }
    return Finished(status: status, signaled: signaled,
                    stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData.value, as: UTF8.self))
}

/// A pipe whose both ends are close-on-exec.
struct CloexecPipe {
    let read: FileHandle
    let write: FileHandle
    init() throws {
        var fds: [Int32] = [0, 0]
        // pipe2 is a GNU extension Swift does not import; the window
        // between pipe and fcntl is what remains of the race.
        guard pipe(&fds) == 0 else { throw CocoaError(.fileWriteUnknown) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        read = FileHandle(fileDescriptor: fds[0], closeOnDealloc: true)
        write = FileHandle(fileDescriptor: fds[1], closeOnDealloc: true)
    }
}

/// The pids whose parent is `pid` (from /proc/*/stat).
func childProcesses(of pid: Int32) -> [Int32] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return names.compactMap { name -> Int32? in
        guard let child = Int32(name), let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")")
        else { return nil }
        // "pid (comm) state ppid ..."; comm may hold spaces, so split after ")".
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 && Int32(fields[1]) == pid ? child : nil
    }
}

/// Data handed from a reader thread.
final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var finished = false
    func set(_ d: Data) { lock.lock(); data = d; finished = true; lock.unlock() }
    var done: Bool { lock.lock(); defer { lock.unlock() }; return finished }
    var value: Data { lock.lock(); defer { lock.unlock() }; return data }
}

/// A fresh temporary directory that is removed, with what is in it, when
/// the last reference goes.
final class OwnedTemporaryDirectory: Sendable {
    let path: String
    init(_ tag: String) throws { path = try makeTemporaryDirectory(tag) }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Writes an executable script. Not with Foundation's `write(toFile:)`: it
/// opens without O_CLOEXEC, so a child another test spawns meanwhile keeps
/// the file open and running the script fails with ETXTBSY.
func writeScript(_ text: String, to path: String) throws {
    if let problem = OutputLocation.write(Data(text.utf8), to: path) { throw CocoaError(.fileWriteUnknown, userInfo: [NSDebugDescriptionErrorKey: problem]) }
    chmod(path, 0o755)
}

/// A fresh temporary directory, removed by the caller.
func makeTemporaryDirectory(_ tag: String = "faultline-tests") throws -> String {
    let base = NSTemporaryDirectory().hasSuffix("/") ? String(NSTemporaryDirectory().dropLast()) : NSTemporaryDirectory()
    var template = Array("\(base)/\(tag)-XXXXXX".utf8CString)
    guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
        throw CocoaError(.fileWriteUnknown)
    }
    return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
