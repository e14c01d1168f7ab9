import Foundation

/// When a running process started, from `/proc/<pid>/stat` (field 22, clock
/// ticks since boot: ProcStat) and `/proc/stat` (`btime`, the boot time in
/// seconds).
enum ProcessStartTime {
    /// The start of the process with `pid`, nil when none runs or /proc
    /// cannot be read.
    static func of(pid: Int) -> Date? {
        guard let ticks = ProcStat.read(pid_t(pid))?.startTicks, let boot = bootTime() else { return nil }
        let hz = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard hz > 0 else { return nil }
        return boot.addingTimeInterval(Double(ticks) / hz)
    }

    private static func bootTime() -> Date? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }),
              let seconds = Double(line.dropFirst("btime ".count))
        else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }
}
