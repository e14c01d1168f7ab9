import Foundation

/// The directory holding the package's build products (victims, the agent
/// libraries, `faultline` itself), and what can be found from it.
public struct BuildDirectory: Sendable {
    /// Absolute path.
    public var path: String

    /// Uses `path` (made absolute).
    public init(path: String) {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        self.path = (absolute as NSString).standardizingPath
    }

    /// The directory of the running executable (`/proc/self/exe`): for the
    /// `faultline` CLI and for test bundles this is where products are built.
    public static func ofRunningExecutable() -> BuildDirectory {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return BuildDirectory(path: (exe as NSString).deletingLastPathComponent)
    }

    /// The product `name` in this directory, nil when not built.
    public func product(_ name: String) -> String? {
        let candidate = (path as NSString).appendingPathComponent(name)
        return FileManager.default.fileExists(atPath: candidate) ? candidate : nil
    }

    /// The injectable agent.
    public static let agentLibrary = "libFaultlineAgentPreload.so"
    /// The malloc shim.
    public static let mallocShimLibrary = "libFaultlineMallocShim.so"
    /// The agent's C++ exception describer, which the agent loads into
    /// processes that have libstdc++ (docs/cxx-exceptions.md).
    public static let agentCxxLibrary = "libFaultlineAgentCxx.so"

    /// The package root: the nearest directory above this one holding `Package.swift`.
    public func packageRoot() -> String? {
        var dir = path
        while dir != "/" && !dir.isEmpty {
            if FileManager.default.fileExists(atPath: (dir as NSString).appendingPathComponent("Package.swift")) { return dir }
            dir = (dir as NSString).deletingLastPathComponent
        }
        return nil
    }

    /// `./Scenarios` when it exists, else `Scenarios` in the package root.
    public func defaultScenariosDirectory() -> String? {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        let local = fm.currentDirectoryPath + "/Scenarios"
        if fm.fileExists(atPath: local, isDirectory: &isDir), isDir.boolValue { return "Scenarios" }
        if let root = packageRoot() {
            let dir = root + "/Scenarios"
            if fm.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue { return dir }
        }
        return nil
    }

    /// The program a scenario's `victim` names: an absolute path as is, else
    /// a product in this directory, else a program on PATH. The error says
    /// how to get the program.
    public func resolveVictim(_ victim: String) -> Result<String, VictimNotFound> {
        let fm = FileManager.default
        if victim.contains("/") {
            return fm.isExecutableFile(atPath: victim)
                ? .success(victim) : .failure(VictimNotFound(message: "victim \(victim) does not exist or is not executable"))
        }
        if let p = product(victim), fm.isExecutableFile(atPath: p) { return .success(p) }
        if let p = ProgramProbe.find(victim) { return .success(p) }
        return .failure(VictimNotFound(message:
            "victim '\(victim)' is neither built in \(path) nor on PATH; build it with `swift build --product \(victim)` or pass --build-dir"))
    }
}

/// A victim that cannot be found (one line, what to do).
public struct VictimNotFound: Error, Sendable, CustomStringConvertible {
    /// The message.
    public var message: String
    public var description: String { message }
}
