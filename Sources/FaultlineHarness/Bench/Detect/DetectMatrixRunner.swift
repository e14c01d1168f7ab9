import Foundation

/// Runs every case under every tool, one run at a time (the machine is
/// shared; a victim's timing is part of its verdict).
public struct DetectMatrixRunner {
    /// Where the victims, agent and shim are built.
    public var build: BuildDirectory
    /// The package checkout (the victims' sources, rebuilt with ASan).
    public var packageRoot: String
    /// Progress lines.
    public var progress: @Sendable (String) -> Void

    /// A runner.
    public init(build: BuildDirectory, packageRoot: String, progress: @escaping @Sendable (String) -> Void) {
        self.build = build
        self.packageRoot = packageRoot
        self.progress = progress
    }

    /// The matrix of `cases` under `tools` (`DetectTool.all`); `filters` is only recorded.
    public func run(_ cases: [DetectCase], tools: [DetectTool], filters: [String]) -> DetectMatrix {
        let started = Date()
        var template = Array((FileManager.default.temporaryDirectory.path + "/faultline-detect-XXXXXX").utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { buf in mkdtemp(buf.baseAddress!).map { String(cString: $0) } }
            ?? FileManager.default.temporaryDirectory.path + "/faultline-detect-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let faultline = DetectFaultlineRun(build: build, directory: dir + "/faultline")
        let peers = DetectPeerRun(build: build, asan: .asan(packageRoot: packageRoot, build: build, directory: dir + "/asan"),
                                  dwarf4: .dwarf4(packageRoot: packageRoot, build: build, directory: dir + "/dwarf4"), directory: dir + "/peers")
        for sub in ["faultline", "asan", "dwarf4", "peers"] { try? FileManager.default.createDirectory(atPath: "\(dir)/\(sub)", withIntermediateDirectories: true) }
        var results: [DetectResult] = []
        for (i, c) in cases.enumerated() {
            var letters = ""
            for tool in tools {
                let r: DetectResult
                if let why = tool.unavailable {
                    r = DetectResult(caseName: c.scenario.name, tool: tool.id, outcome: .unavailable, note: why)
                } else if tool.id.hasPrefix("faultline") {
                    r = faultline.run(c, guardAll: tool.id == "faultline_guard")
                } else {
                    r = peers.run(c, tool: tool.id)
                }
                letters += r.outcome.letter
                results.append(r)
            }
            progress("[\(i + 1)/\(cases.count)] \(letters) \(c.scenario.name) (\(c.bugClass) at \(c.culprit))")
        }
        return DetectMatrix(startedAt: ISO8601DateFormatter().string(from: started), elapsedSeconds: Date().timeIntervalSince(started),
                            filters: filters, tools: tools, cases: cases, results: results)
    }
}
