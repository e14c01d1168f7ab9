import CFaultlineCore
import Glibc
import Testing

/// A registered thread record, never freed: the registry keeps the pointer
/// for the life of the process.
private func newRecord(_ name: StaticString) -> UnsafeMutablePointer<fl_solo_thread> {
    let t = UnsafeMutablePointer<fl_solo_thread>.allocate(capacity: 1)
    t.initialize(to: fl_solo_thread())
    t.pointee.name = UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
    t.pointee.wake = { _ in }
    return t
}

/// A detector-like loop: checks for a stop request every millisecond after
/// waiting `arg` milliseconds first (its "tick" in progress).
private let loop: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { arg in
    let record = arg!.assumingMemoryBound(to: (UnsafeMutablePointer<fl_solo_thread>, Int32).self).pointee
    fl_solo_thread_begin(record.0)
    usleep(UInt32(record.1) * 1000)
    while fl_solo_thread_stop_asked(record.0) == 0 { usleep(1000) }
    return nil
}

/// Starts `t`'s loop as a detector starts its thread; returns its id.
private func start(_ t: UnsafeMutablePointer<fl_solo_thread>, busyMs: Int32) -> (pthread_t, pid_t) {
    let arg = UnsafeMutablePointer<(UnsafeMutablePointer<fl_solo_thread>, Int32)>.allocate(capacity: 1)
    arg.initialize(to: (t, busyMs))
    fl_solo_thread_starting(t)
    var thread = pthread_t()
    #expect(pthread_create(&thread, nil, loop, arg) == 0)
    fl_solo_thread_created(t, thread)
    // The id as fl_solo_thread_created reads it: glibc's thread CPU clock
    // is ((~tid) << 3) | 6.
    var clock = clockid_t()
    #expect(pthread_getcpuclockid(thread, &clock) == 0)
    return (thread, ~(clock >> 3))
}

/// Whether thread `tid` is still in this process's thread group.
private func alive(_ tid: pid_t) -> Bool { access("/proc/self/task/\(tid)", F_OK) == 0 }

@Suite struct SoloThreadStopTests {
    @Test func aRunningThreadEndsAndIsWaitedFor() {
        let t = newRecord("solo-test-a")
        let (thread, tid) = start(t, busyMs: 0)
        #expect(alive(tid))
        #expect(fl_solo_thread_stop(t) == 1)
        // Waited for: the kernel has taken it out of the group already.
        #expect(!alive(tid))
        #expect(fl_solo_thread_stopped(t) == 1)
        pthread_join(thread, nil)
    }

    @Test func aThreadNeverStartedIsStoppedAtOnce() {
        let t = newRecord("solo-test-b")
        #expect(fl_solo_thread_stop(t) == 1)
    }

    @Test func aThreadBusyPastTheWaitIsLeftToEndByItself() {
        let t = newRecord("solo-test-c")
        let (thread, tid) = start(t, busyMs: 2600)
        #expect(fl_solo_thread_stop(t) == 0)
        #expect(alive(tid))
        // The request stands: it ends at its next safe point.
        pthread_join(thread, nil)
        #expect(!alive(tid))
    }
}
