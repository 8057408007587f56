import Testing

@testable import LoadRunner

/// The one rule for tag names, as the scenario parser applies it.
@Suite struct TagNameTests {
    @Test(
        "labels featureload or Prometheus set, and __ names, cannot be tags; others can",
        arguments: [
            ("le", false), ("quantile", false), ("run_id", false), ("run-id", false), ("generator", false), ("status", false), ("__name__", false),
            ("__x", false), ("branch", true), ("team-name", true), ("env", true),
        ])
    func rule(_ name: String, _ allowed: Bool) {
        #expect((TagName.problem(name) == nil) == allowed, "\(name): \(TagName.problem(name) ?? "allowed")")
    }

    @Test("a scenario file's reserved tags are each refused, naming the field")
    func inTheFile() {
        let yaml = """
            scenarios:
              s:
                executor: shared-iterations
                vus: 1
                iterations: 1
                exec: query
                tags: { le: "0.5", run-id: x, team: qa }
            """
        #expect(throws: (any Error).self) { _ = try ScenarioParser.parse(yaml: yaml, file: "t.yaml") }
        do {
            _ = try ScenarioParser.parse(yaml: yaml, file: "t.yaml")
        } catch {
            let text = "\(error)"
            #expect(text.contains("scenarios.s.tags.le") && text.contains("scenarios.s.tags.run-id") && !text.contains("tags.team"), "\(text)")
        }
    }
}
