import Foundation

/// The detectors a run asks for (`faultline exec --detectors LIST`, passed
/// to the agent and the malloc shim as `FAULTLINE_DETECTORS`).
public struct DetectorSelection: Sendable, Equatable {
    /// Every detector name the agent and the malloc shim know.
    public static let known = ["crash", "cxx_exception", "hang", "memory", "cpu", "fds", "threads", "launch", "use_after_free", "leaks"]
    /// The detectors that live in the malloc shim, not in the agent.
    public static let shimDetectors: Set<String> = ["use_after_free", "leaks"]

    /// The selected names, in the order given, without repeats.
    public let names: [String]

    /// Every detector.
    public static let all = DetectorSelection(validated: known)

    private init(validated names: [String]) { self.names = names }

    /// Parses a comma-separated list; `all` selects every detector.
    /// Throws a one-line error naming the first unknown entry.
    public init(parsing list: String) throws(DetectorSelectionError) {
        var names: [String] = []
        for raw in list.split(separator: ",", omittingEmptySubsequences: false) {
            let name = raw.trimmingCharacters(in: .whitespaces).lowercased()
            if name == "all" { names += Self.known; continue }
            guard Self.known.contains(name) else { throw DetectorSelectionError(entry: String(raw), list: list) }
            names.append(name)
        }
        var seen: Set<String> = []
        self.names = names.filter { seen.insert($0).inserted }
    }

    /// True when a malloc-shim detector is selected, so the shim must be
    /// preloaded too.
    public var needsShim: Bool { names.contains { Self.shimDetectors.contains($0) } }

    /// The value for `FAULTLINE_DETECTORS`: `all` when every detector is
    /// selected, else the names.
    public var environmentValue: String {
        Set(names) == Set(Self.known) ? "all" : names.joined(separator: ",")
    }
}

/// An unknown name in a detector list.
public struct DetectorSelectionError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The bad entry as written.
    public let entry: String
    /// The whole list.
    public let list: String

    /// An error for `entry` in `list`.
    public init(entry: String, list: String) {
        self.entry = entry
        self.list = list
    }

    public var description: String {
        let what = entry.trimmingCharacters(in: .whitespaces).isEmpty ? "an empty name" : "unknown detector '\(entry)'"
        return "--detectors '\(list)' has \(what); valid: \(DetectorSelection.known.joined(separator: ", ")) (or all)"
    }
}
