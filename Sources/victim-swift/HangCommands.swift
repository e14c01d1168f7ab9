import Dispatch
import FaultlineAgent
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A class so frames carry a demangled type name (`Ledger.recalculate`).
final class Ledger {
    var total: UInt64 = 1

    /// Burns the CPU on the calling thread for `milliseconds`.
    @inline(never)
    func recalculate(milliseconds: Int) {
        let end = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds) * 1_000_000
        while DispatchTime.now().uptimeNanoseconds < end {
            for _ in 0..<10_000 { total = total &* 6364136223846793005 &+ 1442695040888963407 }
        }
    }
}

private func startWatchdog() {
    do {
        try HangWatchdog.start()
    } catch {
        fputs("victim-swift: hang watchdog not started: \(error)\n", stderr)
        exit(3)
    }
}

private func milliseconds(_ args: [String], default value: Int) -> Int {
    args.first.flatMap { Int($0) } ?? value
}

/// Blocks the main queue once for `ms`, then leaves the queue idle for a
/// moment (so the recovery is seen) and exits.
private func scheduleBlock(_ ms: Int) {
    DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(300)) {
        fputs("victim: blocking the main queue for \(ms) ms\n", stderr)
        Ledger().recalculate(milliseconds: ms)
        fputs("victim: main queue responsive again\n", stderr)
        DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(400)) { exit(0) }
    }
}

/// Main-thread hangs in programs that run the main queue.
let hangCommands: [VictimCommand] = [
    VictimCommand(name: "main-queue-block", help: "[MS] dispatchMain(); one main-queue block runs MS (3000) ms") { args in
        startWatchdog()
        scheduleBlock(milliseconds(args, default: 3000))
        dispatchMain()
    },
    VictimCommand(name: "runloop-block", help: "[MS] RunLoop.main.run(); one main-queue block runs MS (3000) ms") { args in
        startWatchdog()
        scheduleBlock(milliseconds(args, default: 3000))
        RunLoop.main.run()
    },
    VictimCommand(name: "main-queue-responsive", help: "[MS] RunLoop.main.run(); 30 ms main-queue blocks for MS (4000) ms") { args in
        startWatchdog()
        let end = DispatchTime.now().uptimeNanoseconds + UInt64(milliseconds(args, default: 4000)) * 1_000_000
        let ledger = Ledger()
        func next() {
            DispatchQueue.main.async {
                ledger.recalculate(milliseconds: 30)
                if DispatchTime.now().uptimeNanoseconds > end {
                    fputs("victim: done\n", stderr)
                    exit(0)
                }
                next()
            }
        }
        fputs("victim: main queue busy with 30 ms blocks\n", stderr)
        next()
        RunLoop.main.run()
    },
]
