import CHangUnderTest
import Glibc
import Testing

/// Threads for a walk: what each waits for, by tid. A thread missing from
/// `edges` waits for nothing; one in `gone` cannot be observed.
final class WaitTable {
    var edges: [pid_t: fl_wait_edge] = [:]
    var gone: Set<pid_t> = []
    /// Threads the walk observed, in order (the first one is given).
    var probed: [pid_t] = []

    /// `waiter` waits on the mutex at `lock`, held by `owner`.
    func waits(_ waiter: pid_t, on lock: UInt, heldBy owner: pid_t, kind: fl_edge_kind = FL_EDGE_MUTEX,
               alive: Bool = true, timed: Bool = false) {
        var e = fl_wait_edge()
        e.kind = kind
        e.addr = lock
        e.owner = owner
        e.owner_alive = alive ? 1 : 0
        e.timed = timed ? 1 : 0
        e.mutex_type = 0
        edges[waiter] = e
    }

    /// Walks from `first` through fl_wait_chain_walk, this table its source.
    func walk(from first: pid_t) -> fl_wait_chain {
        var start = fl_thread_probe()
        start.tid = first
        var source = fl_wait_source(
            edge: { ctx, p, e in
                let table = Unmanaged<WaitTable>.fromOpaque(ctx!).takeUnretainedValue()
                e!.pointee = table.edges[p!.pointee.tid] ?? fl_wait_edge()
            },
            probe: { ctx, tid, p in
                let table = Unmanaged<WaitTable>.fromOpaque(ctx!).takeUnretainedValue()
                if table.gone.contains(tid) { return -1 }
                table.probed.append(tid)
                p!.pointee = fl_thread_probe()
                p!.pointee.tid = tid
                return 0
            },
            ctx: Unmanaged.passUnretained(self).toOpaque())
        var chain = fl_wait_chain()
        withExtendedLifetime(self) { fl_wait_chain_walk(&start, &source, &chain) }
        return chain
    }
}

/// The links' thread ids, in order.
func tids(_ chain: fl_wait_chain) -> [pid_t] {
    withUnsafeBytes(of: chain.links) { raw in
        Array(raw.bindMemory(to: fl_chain_link.self).prefix(Int(chain.count)).map { $0.probe.tid })
    }
}

/// The hang detector's wait-for graph walk (deadlock_graph.c) over a table
/// of threads: where a chain ends, where its cycle starts, and when two
/// walks confirm the same deadlock.
@Suite struct DeadlockGraphTests {
    @Test func aThreeThreadCycleIsFoundFromAThreadOutsideIt() {
        let t = WaitTable()
        t.waits(9, on: 0x900, heldBy: 1)
        t.waits(1, on: 0x100, heldBy: 2)
        t.waits(2, on: 0x200, heldBy: 3, kind: FL_EDGE_PI_MUTEX)
        t.waits(3, on: 0x300, heldBy: 1, kind: FL_EDGE_RWLOCK)
        let chain = t.walk(from: 9)
        #expect(tids(chain) == [9, 1, 2, 3])
        #expect(chain.cycle_start == 1, "the cycle starts at thread 1, not at the thread the walk began with")
        #expect(t.probed == [1, 2, 3], "each thread is observed once")
    }

    @Test func aChainEndingInARunningThreadHasNoCycle() {
        let t = WaitTable()
        t.waits(1, on: 0x100, heldBy: 2)
        t.waits(2, on: 0x200, heldBy: 3, kind: FL_EDGE_JOIN)
        let chain = t.walk(from: 1)
        #expect(tids(chain) == [1, 2, 3])
        #expect(chain.cycle_start == -1)
    }

    /// An owner that exited (an orphaned lock), an edge without an owner
    /// (a condition variable) and an owner that cannot be observed each
    /// end the chain at the waiter, without a cycle.
    @Test(arguments: ["dead owner", "no owner", "ownerless kind", "owner gone"])
    func aChainEndsWhereNoLiveOwnerIsKnown(_ why: String) {
        let t = WaitTable()
        t.waits(1, on: 0x100, heldBy: 2)
        switch why {
        case "dead owner": t.waits(2, on: 0x200, heldBy: 1, alive: false)
        case "no owner": t.waits(2, on: 0x200, heldBy: 0)
        case "ownerless kind": t.waits(2, on: 0x200, heldBy: 1, kind: FL_EDGE_FUTEX)
        default: t.waits(2, on: 0x200, heldBy: 3); t.gone = [3]
        }
        let chain = t.walk(from: 1)
        #expect(tids(chain) == [1, 2], "\(why)")
        #expect(chain.cycle_start == -1, "\(why)")
    }

    @Test func aThreadRelockingItsOwnMutexIsACycleOfOne() {
        let t = WaitTable()
        t.waits(5, on: 0x500, heldBy: 5)
        let chain = t.walk(from: 5)
        #expect(tids(chain) == [5])
        #expect(chain.cycle_start == 0)
        #expect(t.probed.isEmpty, "the waiter is its own owner: nobody else to observe")
    }

    @Test func aLongChainIsFollowedToItsEnd() {
        let t = WaitTable()
        for tid in pid_t(100)..<pid_t(140) { t.waits(tid, on: UInt(tid) * 16, heldBy: tid + 1) }
        let chain = t.walk(from: 100)
        #expect(tids(chain) == Array(pid_t(100)...pid_t(140)))
        #expect(chain.cycle_start == -1)
    }

    /// A cycle longer than the chain holds is cut at FL_CHAIN_MAX links,
    /// reported as no cycle, and nothing is written past the table.
    @Test func aChainLongerThanTheTableStopsAtItsLastLink() {
        let t = WaitTable()
        let n = pid_t(FL_CHAIN_MAX) + 20
        for tid in pid_t(1)...n { t.waits(tid, on: UInt(tid) * 16, heldBy: tid == n ? 1 : tid + 1) }
        let chain = t.walk(from: 1)
        #expect(chain.count == FL_CHAIN_MAX)
        #expect(tids(chain) == Array(pid_t(1)...pid_t(FL_CHAIN_MAX)))
        #expect(chain.cycle_start == -1)
        #expect(t.probed.count == Int(FL_CHAIN_MAX) - 1, "the owner of the last link is not observed")
    }

    @Test func aCycleIsConfirmedByASecondWalkFromAnotherThreadOfIt() {
        let t = WaitTable()
        t.waits(1, on: 0x100, heldBy: 2)
        t.waits(2, on: 0x200, heldBy: 1)
        t.waits(7, on: 0x100, heldBy: 2)
        var first = t.walk(from: 1), second = t.walk(from: 7)
        #expect(fl_wait_cycle_confirmed(&first, &second) == 1)
        #expect(fl_wait_cycle_confirmed(&second, &first) == 1)
    }

    /// Between two walks a lock changed, an edge was a timed wait (it may
    /// end by itself), or the second walk found no cycle: not confirmed.
    @Test(arguments: ["other lock", "timed", "no cycle", "longer cycle"])
    func aCycleThatChangedOrMayEndIsNotConfirmed(_ change: String) {
        let t = WaitTable()
        t.waits(1, on: 0x100, heldBy: 2)
        t.waits(2, on: 0x200, heldBy: 1, timed: change == "timed")
        var first = t.walk(from: 1)
        switch change {
        case "other lock": t.waits(2, on: 0x280, heldBy: 1)
        case "no cycle": t.waits(2, on: 0x200, heldBy: 3)
        case "longer cycle": t.waits(2, on: 0x200, heldBy: 3); t.waits(3, on: 0x300, heldBy: 1)
        default: break
        }
        var second = t.walk(from: 1)
        #expect(fl_wait_cycle_confirmed(&first, &second) == 0, "\(change)")
    }
}
