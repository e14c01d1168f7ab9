import Foundation

/// The launch times the agent's `launch` detector leaves for
/// `faultline exec` in the report directory (`.launch-PID.json`, hidden,
/// so not a report): exec -> main (loading, constructors) -> ready.
public struct LaunchRecord: Sendable, Equatable {
    /// Milliseconds from exec to main, to the agent's constructor (loading),
    /// from it to main (constructors), from main to ready; nil when unknown.
    public var execToMainMs, loadingMs, constructorsMs, mainToReadyMs: Int?
    /// How readiness was seen (`event_loop`, `heartbeat`, `ping`,
    /// `faultline_ready`), nil when the program never became ready.
    public var readyBy: String?

    /// The record of `pid` in `directory`, removed once read (so a clean run
    /// still leaves nothing behind); nil when there is none or it is not
    /// one.
    public static func take(directory: String, pid: Int32) -> LaunchRecord? {
        let path = "\(directory)/.launch-\(pid).json"
        defer { unlink(path) }
        guard let data = FileManager.default.contents(atPath: path),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        func ms(_ key: String) -> Int? { (object[key] as? NSNumber)?.intValue }
        return LaunchRecord(execToMainMs: ms("exec_to_main_ms"), loadingMs: ms("loading_ms"), constructorsMs: ms("constructors_ms"),
                            mainToReadyMs: ms("main_to_ready_ms"), readyBy: object["ready_by"] as? String)
    }

    /// One line: `launch: 412 ms to main (loading 12 ms, constructors 400
    /// ms), ready 30 ms later (event_loop)`.
    public var summary: String {
        var line = "launch: "
        if let m = execToMainMs {
            line += "\(m) ms to main"
            if let l = loadingMs, let c = constructorsMs { line += " (loading \(l) ms, constructors \(c) ms)" }
        } else {
            line += "main not seen"
        }
        if let by = readyBy {
            line += ", ready " + (mainToReadyMs.map { "\($0) ms later" } ?? "") + " (\(by.replacingOccurrences(of: "_", with: " ")))"
        } else {
            line += ", no event loop or faultline_ready() seen"
        }
        return line
    }
}
