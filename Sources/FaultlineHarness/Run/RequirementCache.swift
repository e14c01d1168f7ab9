import Synchronization

/// Remembers each requirement's answer for one `faultline run`, so a probe
/// (creating a cgroup, starting python3) runs once, not once per scenario.
final class RequirementCache: Sendable {
    private let answers = Mutex<[String: String?]>([:])

    /// nil when `requirement` is met, else why not.
    func check(_ requirement: String, in registry: RequirementRegistry) -> String? {
        if let known = answers.withLock({ $0[requirement] }) { return known }
        let answer = registry.check(requirement)
        answers.withLock { $0[requirement] = .some(answer) }
        return answer
    }
}
