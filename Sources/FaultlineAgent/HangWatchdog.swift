import CFaultlineAgent
import Dispatch

/// Main-thread hang detection for Swift programs that drive the main queue
/// (`RunLoop.main.run()`, `dispatchMain()`, or a `@main` async entry point).
///
/// The agent's watchdog thread pings `DispatchQueue.main` every sampling
/// interval; while a ping is unanswered it samples the stack of the thread
/// that runs the main queue every 50 ms, and when the threshold passes it
/// writes a `hang` report with the culprit stack (and a `hang_recovered`
/// report when the queue drains again). See docs/hangs.md.
///
/// Install the agent first (`FaultlineAgent.install()`), with `hang` in
/// `FAULTLINE_DETECTORS` (the default `all` includes it). Programs that never
/// run the main queue must not start the watchdog: every ping would go
/// unanswered. Such programs can call `heartbeat()` from their own loop.
public enum HangWatchdog {
    /// Why the watchdog could not be started or configured.
    public struct Failure: Error, CustomStringConvertible {
        /// The agent's explanation, naming the value or setting involved.
        public let description: String
    }

    /// Starts pinging the main queue. Zero or nil arguments keep the value in
    /// force (from `FAULTLINE_HANG_THRESHOLD_MS` and friends, or the
    /// defaults: 2000 ms threshold, 50 ms sampling, 5000 ms deadlock).
    public static func start(
        thresholdMilliseconds: Int = 0,
        sampleIntervalMilliseconds: Int = 0,
        deadlockThresholdMilliseconds: Int = 0
    ) throws {
        try configure(
            thresholdMilliseconds: thresholdMilliseconds,
            sampleIntervalMilliseconds: sampleIntervalMilliseconds,
            deadlockThresholdMilliseconds: deadlockThresholdMilliseconds)
        if faultline_hang_set_pinger(pingMainQueue, nil) != 0 {
            throw Failure(description: String(cString: faultline_hang_last_error()))
        }
    }

    /// Stops pinging; the detector falls back to heartbeat or inferred mode.
    public static func stop() {
        _ = faultline_hang_set_pinger(nil, nil)
    }

    /// Changes the detector's options (zero keeps the value in force;
    /// `deadlockThresholdMilliseconds: -1` turns the duration rule off).
    public static func configure(
        thresholdMilliseconds: Int = 0,
        sampleIntervalMilliseconds: Int = 0,
        deadlockThresholdMilliseconds: Int = 0
    ) throws {
        var options = faultline_hang_options()
        options.threshold_ms = Int32(clamping: thresholdMilliseconds)
        options.sample_interval_ms = Int32(clamping: sampleIntervalMilliseconds)
        options.deadlock_threshold_ms = Int32(clamping: deadlockThresholdMilliseconds)
        if faultline_hang_configure(&options) != 0 {
            throw Failure(description: String(cString: faultline_hang_last_error()))
        }
    }

    /// Tells the watchdog the calling thread is responsive; for programs
    /// with their own loop instead of the main queue. Costs a clock read and
    /// two atomic stores.
    @inline(__always)
    public static func heartbeat() {
        faultline_heartbeat()
    }
}

/// The pinger the watchdog calls on its own thread: the answer comes when
/// the main queue runs the block.
private func pingMainQueue(_ context: UnsafeMutableRawPointer?) {
    DispatchQueue.main.async { faultline_heartbeat() }
}
