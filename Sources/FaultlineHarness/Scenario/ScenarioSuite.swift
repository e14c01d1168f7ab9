import Foundation

/// Every scenario file under a directory (any depth, `*.yaml` / `*.yml`),
/// loaded and checked for unique names.
public struct ScenarioSuite: Sendable {
    /// Scenarios in path order, a file's variants in the order it lists them.
    public var scenarios: [Scenario]
    /// One error per bad file (and per duplicate name).
    public var errors: [ScenarioLoadError]

    /// Loads `directory`. File names in errors are shown as `directory/…`.
    public static func load(directory: String, loader: ScenarioLoader = ScenarioLoader()) -> ScenarioSuite {
        var scenarios: [Scenario] = []
        var errors: [ScenarioLoadError] = []
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDir), isDir.boolValue else {
            return ScenarioSuite(scenarios: [], errors: [ScenarioLoadError(SourceLocation(file: directory, line: 1),
                "no such scenario directory; pass --scenarios DIR")])
        }
        let (files, unreadable) = scenarioFiles(in: directory)
        for (relative, why) in unreadable {
            errors.append(ScenarioLoadError(SourceLocation(file: (directory as NSString).appendingPathComponent(relative), line: 1),
                "cannot read this folder (\(why)), so its scenarios are missing from the suite; check its permissions"))
        }
        for relative in files {
            let path = (directory as NSString).appendingPathComponent(relative)
            do {
                scenarios += try loader.loadAll(path: path, pathName: ScenarioLoader.name(forRelativePath: relative))
            } catch {
                errors.append(error)
            }
        }
        var firstByName: [String: Scenario] = [:]
        for s in scenarios {
            if let first = firstByName[s.name] {
                errors.append(ScenarioLoadError(s.source,
                    "scenario name '\(s.name)' is already used by \(first.source); rename one of them"))
            } else {
                firstByName[s.name] = s
            }
        }
        return ScenarioSuite(scenarios: scenarios, errors: errors)
    }

    /// Relative paths of the scenario files under `directory`, sorted, and
    /// the folders below it that could not be read, with why (strerror).
    /// Symbolic links to files count; links to folders are not followed.
    /// (FileManager's enumerator skipped an unreadable folder without a
    /// word, and with it every scenario inside.)
    static func scenarioFiles(in directory: String) -> (files: [String], unreadable: [(String, String)]) {
        var files: [String] = [], unreadable: [(String, String)] = []
        func walk(_ relative: String) {
            let path = relative.isEmpty ? directory : (directory as NSString).appendingPathComponent(relative)
            guard let dir = opendir(path) else {
                unreadable.append((relative, String(cString: strerror(errno))))
                return
            }
            var names: [String] = []
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(dir)
            for name in names.sorted() {
                let child = relative.isEmpty ? name : relative + "/" + name
                if name.hasSuffix(".yaml") || name.hasSuffix(".yml") { files.append(child) }
                var st = stat()
                if lstat((directory as NSString).appendingPathComponent(child), &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR {
                    walk(child)
                }
            }
        }
        walk("")
        return (files.sorted(), unreadable)
    }

    /// The scenarios whose name contains any of `filters` (all when empty).
    public func filtered(_ filters: [String]) -> [Scenario] {
        filters.isEmpty ? scenarios : scenarios.filter { s in filters.contains { s.name.contains($0) } }
    }
}
