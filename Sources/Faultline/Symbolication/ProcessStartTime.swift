import Foundation

/// When a running process started, from `/proc/<pid>/stat` (field 22, clock
/// ticks since boot) and `/proc/stat` (`btime`, the boot time in seconds).
enum ProcessStartTime {
    /// The start of the process with `pid`, nil when none runs or /proc
    /// cannot be read.
    static func of(pid: Int) -> Date? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let boot = bootTime(),
              // The command name (field 2) may hold spaces and parentheses: fields resume after the last ')'.
              let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state), so field 22 is fields[19].
        guard fields.count > 19, let ticks = Double(fields[19]) else { return nil }
        let hz = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard hz > 0 else { return nil }
        return boot.addingTimeInterval(ticks / hz)
    }

    private static func bootTime() -> Date? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }),
              let seconds = Double(line.dropFirst("btime ".count))
        else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }
}
