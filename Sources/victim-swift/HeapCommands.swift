#if canImport(Glibc)
import Glibc
#endif

/// A class whose instances live on the heap (swift_allocObject -> malloc).
/// Layout: metadata, reference counts, then `buffer` at offset 16.
final class Session {
    var buffer: UnsafeMutablePointer<Int>
    var id: Int

    init(id: Int) {
        buffer = UnsafeMutablePointer<Int>.allocate(capacity: 4)
        buffer.initialize(repeating: id, count: 4)
        self.id = id
    }

    deinit { buffer.deallocate() }
}

/// Creates a session and hands out its address, retained once.
@inline(never)
func openSession() -> UnsafeMutableRawPointer {
    Unmanaged.passRetained(Session(id: 42)).toOpaque()
}

/// Drops the last reference: the runtime frees the instance's memory.
@inline(never)
func closeSession(_ raw: UnsafeMutableRawPointer) {
    Unmanaged<Session>.fromOpaque(raw).release()
}

/// Reads the session's buffer through the stale address: the stored
/// property now holds the shim's 0x5555… scribble and the load faults.
@inline(never)
func readClosedSession(_ raw: UnsafeMutableRawPointer) -> Int {
    let buffer = raw.load(fromByteOffset: 16, as: UnsafeMutablePointer<Int>.self)
    return buffer.pointee
}

/// Allocates a 200-byte buffer with `UnsafeMutablePointer.allocate`, writes
/// into it and forgets it: the memory is never deallocated (a leak).
@inline(never)
func leakScratchBuffer() -> Int {
    let buffer = UnsafeMutablePointer<Int>.allocate(capacity: 25)
    buffer.initialize(repeating: 7, count: 25)
    return buffer[3]
}

/// Leaks a 120-byte buffer from a second function, so that suppressing
/// leakScratchBuffer leaves one leak to report.
@inline(never)
func leakLedgerBuffer() -> Int {
    let buffer = UnsafeMutablePointer<Int>.allocate(capacity: 15)
    buffer.initialize(repeating: 5, count: 15)
    return buffer[2]
}

/// Overwrites dead stack below the caller, so no stale copy of the lost
/// pointer is left where a conservative scan would see it.
@inline(never)
func scrubStack() {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16384) { $0.initialize(repeating: 0) }
}

/// Heap faults in Swift code.
let heapCommands: [VictimCommand] = [
    VictimCommand(name: "use-after-free-object", help: "SIGSEGV: read a freed class instance through an unsafe pointer") { _ in
        let raw = openSession()
        closeSession(raw)
        fputs("victim: reading a freed Session through its old address\n", stderr)
        print(readClosedSession(raw))
    },
    VictimCommand(name: "leak-allocate", help: "leak a 200-byte UnsafeMutablePointer<Int>.allocate buffer (reported at exit by the shim's leak check)") { _ in
        let value = leakScratchBuffer()
        scrubStack()
        print("victim: leaked a 200-byte buffer (value \(value))")
    },
    VictimCommand(name: "leak-two", help: "leak a 200-byte buffer from leakScratchBuffer and a 120-byte one from leakLedgerBuffer") { _ in
        let value = leakScratchBuffer() + leakLedgerBuffer()
        scrubStack()
        print("victim: leaked a 200-byte and a 120-byte buffer (value \(value))")
    },
    VictimCommand(name: "leak-two-suppressed", help: "leak-two, with a suppressions file naming leakScratchBuffer by its demangled Swift name") { _ in
        rerunWithSuppressions("# a demangled Swift name: no symbol in the binary contains it\nleak:victim_swift.leakScratchBuffer() -> Swift.Int\n",
                              command: "leak-two")
    },
]

/// Writes `text` to leaks.supp in the working directory and runs this
/// program again as `command` with FAULTLINE_SUPPRESSIONS naming it
/// (the shim reads the file when it starts).
func rerunWithSuppressions(_ text: String, command: String) -> Never {
    guard let file = fopen("leaks.supp", "w") else { perror("victim: leaks.supp"); exit(2) }
    fputs(text, file)
    fclose(file)
    var cwd = [CChar](repeating: 0, count: Int(PATH_MAX))
    guard getcwd(&cwd, cwd.count) != nil else { perror("victim: getcwd"); exit(2) }
    setenv("FAULTLINE_SUPPRESSIONS", String(cString: cwd) + "/leaks.supp", 1)
    let argv: [UnsafeMutablePointer<CChar>?] = [strdup(CommandLine.arguments[0]), strdup(command), nil]
    execv("/proc/self/exe", argv)
    perror("victim: exec")
    exit(2)
}
