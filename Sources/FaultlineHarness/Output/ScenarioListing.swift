/// The table `faultline list` prints.
public enum ScenarioListing {
    /// One row per scenario: name, command, injection, expectation.
    public static func render(_ scenarios: [Scenario]) -> String {
        var table = TextTable(header: ["scenario", "victim", "inject", "expects"])
        for s in scenarios {
            table.rows.append([s.name, ScenarioSummary.command(s), ScenarioSummary.injection(s), ScenarioSummary.expectation(s)])
        }
        return table.render()
    }
}
