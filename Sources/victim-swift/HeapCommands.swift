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
]
