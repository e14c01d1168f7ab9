import Foundation

/// Every scenario file under a directory (any depth, `*.yaml` / `*.yml`),
/// loaded and checked for unique names.
public struct ScenarioSuite: Sendable {
    /// Scenarios in path order.
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
        for relative in scenarioFiles(in: directory) {
            let path = (directory as NSString).appendingPathComponent(relative)
            do {
                scenarios.append(try loader.load(path: path))
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

    /// Relative paths of the scenario files under `directory`, sorted.
    static func scenarioFiles(in directory: String) -> [String] {
        guard let e = FileManager.default.enumerator(atPath: directory) else { return [] }
        var out: [String] = []
        while let p = e.nextObject() as? String {
            if p.hasSuffix(".yaml") || p.hasSuffix(".yml") { out.append(p) }
        }
        return out.sorted()
    }

    /// The scenarios whose name contains any of `filters` (all when empty).
    public func filtered(_ filters: [String]) -> [Scenario] {
        filters.isEmpty ? scenarios : scenarios.filter { s in filters.contains { s.name.contains($0) } }
    }
}
