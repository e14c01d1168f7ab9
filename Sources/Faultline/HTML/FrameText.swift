import Foundation

/// How the page names a frame, and whether a frame is the program's own
/// code (the frames a stack is collapsed to) or a library's.
struct FrameText {
    /// The report's images, which frames refer to by index.
    let images: [Report.Image]
    /// The reported process's executable, when the report names it.
    let executable: String?

    init(_ report: Report) {
        images = report.images ?? []
        executable = report.process.executable
    }

    /// `victim_spin main.c:56`: the function and the file name with its
    /// line, short enough for a flame graph box; `victim-c + 0x1453` or the
    /// address when no symbol is known.
    func short(_ f: Report.Frame) -> String {
        if f.signalFrame == true { return "<signal handler called>" }
        guard let s = f.symbol else { return location(f) }
        var text = RustSymbolName.display(s.function)
        if let file = s.file {
            text += " " + (file as NSString).lastPathComponent
            if let line = s.line { text += ":\(line)" }
        }
        return text
    }

    /// The function alone (`location` when unsymbolicated): what a flame
    /// graph box and a group are named by.
    func function(_ f: Report.Frame) -> String {
        if f.signalFrame == true { return "<signal handler called>" }
        return f.symbol.map { RustSymbolName.display($0.function) } ?? location(f)
    }

    /// `function at /full/path.c:56:13 (victim-c)`, inlined callers first
    /// on lines of their own: a tooltip and a stack line.
    func full(_ f: Report.Frame) -> String {
        var lines: [String] = []
        for inlined in f.symbol?.inlined ?? [] { lines.append("[inlined] " + described(inlined)) }
        var line = f.symbol.map(described) ?? short(f)
        if f.symbol?.perfMap != nil { line += " [JIT]" }
        if let name = imageName(f) { line += "  (\(name))" }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    private func described(_ s: Report.Symbol) -> String {
        var text = RustSymbolName.display(s.function)
        guard let file = s.file else { return text }
        text += " at \(file)"
        if let line = s.line { text += ":\(line)" }
        if let column = s.column { text += ":\(column)" }
        return text
    }

    /// `libc.so.6`, nil outside any image.
    func imageName(_ f: Report.Frame) -> String? {
        guard let i = f.image, images.indices.contains(i) else { return nil }
        return StackFormatter.shortName(images[i].path)
    }

    /// `victim-c + 0x1453`, or the address outside any image.
    func location(_ f: Report.Frame) -> String {
        guard let name = imageName(f) else { return "0x" + String(f.pc.value, radix: 16) }
        return f.offset.map { "\(name) + \($0)" } ?? name
    }

    /// True for the program's own code: a frame in the executable or in a
    /// library outside the system's directories, or JIT code; false for
    /// the C library and other system libraries, the Swift runtime, the
    /// vDSO and Faultline's own agent and shim.
    func isProgram(_ f: Report.Frame) -> Bool {
        if f.signalFrame == true { return false }
        guard let i = f.image, images.indices.contains(i) else { return f.symbol?.perfMap != nil }
        let path = images[i].path
        if path == executable { return true }
        let name = StackFormatter.shortName(path)
        if path.hasPrefix("[") || name == AgentInjection.agentLibrary || name == AgentInjection.shimLibrary { return false }
        return !Self.systemPrefixes.contains { path.hasPrefix($0) } && !path.contains("/usr/lib/swift/")
    }

    /// Directories whose libraries are not the program's.
    static let systemPrefixes = ["/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/usr/libexec/"]
}
