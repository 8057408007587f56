import FeatureModel
import Foundation
import LoadRunner
import Testing

@Suite struct ScenarioParserTests {
    static let valid = """
        version: 1
        name: smoke
        target: local
        seed: 7
        scenarios:
          single:
            executor: shared-iterations
            vus: 4
            iterations: 100
          batched:
            executor: shared-iterations
            vus: 4
            iterations: 10
            batchSize: 10
            maxDuration: 1m30s
        compare:
          - baseline: single
            candidate: batched
            min: 5
        """

    @Test("a valid file becomes a plan with defaults filled in")
    func validFile() throws {
        let plan = try ScenarioParser.parse(yaml: Self.valid, file: "smoke.yaml")
        #expect(plan.name == "smoke")
        #expect(plan.target == .local(dataset: "parks"))
        #expect(plan.seed == 7)
        #expect(plan.verify)
        #expect(plan.maxFailedEditRate == 0)
        #expect(plan.scenarios.map(\.name) == ["single", "batched"])
        #expect(plan.scenarios[0].batchSize == 1)
        #expect(plan.scenarios[0].layers == [0])
        #expect(plan.scenarios[0].executor.scheduledDuration == .seconds(600))
        #expect(plan.scenarios[1].executor.scheduledDuration == .seconds(90))
        #expect(plan.scenarios[1].batchSize * (plan.scenarios[1].iterations ?? 0) == 100)
        #expect(plan.comparisons == [.init(baseline: "single", candidate: "batched", metric: "editsPerSecond", minRatio: 5)])
    }

    @Test("the shipped quickstart scenario is valid")
    func quickstartIsValid() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Scenarios/quickstart.yaml")
        let text = try String(contentsOf: url, encoding: .utf8)
        let plan = try ScenarioParser.parse(yaml: text, file: "Scenarios/quickstart.yaml")
        #expect(plan.scenarios.count == 2)
        #expect(
            plan.scenarios[0].batchSize * (plan.scenarios[0].iterations ?? 0) == plan.scenarios[1].batchSize * (plan.scenarios[1].iterations ?? 0))
        #expect(plan.comparisons.first?.minRatio == 10)
    }

    @Test("every problem is reported at once, each with line, column, field and fix")
    func allProblemsAtOnce() throws {
        let yaml = """
            version: 1
            name: broken
            target: ftp://example.com
            scenarios:
              single:
                executor: shared-iterations
                vus: 0
                iterations: lots
                batchsize: 10
              other:
                executor: ramping-arrival
                iterations: 5
                maxDuration: 90
            compare:
              - baseline: single
                candidate: missing
            """
        let error = #expect(throws: ScenarioFileError.self) { try ScenarioParser.parse(yaml: yaml, file: "broken.yaml") }
        let issues = try #require(error?.issues)
        let byField = Dictionary(grouping: issues, by: \.field)
        #expect(byField["target"]?.first?.line == 3)
        #expect(byField["scenarios.single.vus"]?.first?.line == 7)
        #expect(byField["scenarios.single.vus"]?.first?.problem.contains("1…10000") == true)
        #expect(byField["scenarios.single.iterations"]?.first?.line == 8)
        #expect(byField["scenarios.single.batchsize"]?.first?.fix.contains("did you mean `batchSize`") == true)
        #expect(byField["scenarios.other.executor"]?.first?.fix.contains("shared-iterations") == true)
        #expect(byField["scenarios.other.maxDuration"]?.first?.line == 13)
        #expect(byField["compare[0].candidate"]?.first?.problem.contains("missing") == true)
        #expect(issues.count == 7)
        #expect(issues.allSatisfy { $0.file == "broken.yaml" && $0.column != nil && !$0.fix.isEmpty })
        let text = String(describing: error!)
        #expect(text.contains("broken.yaml:7:"))
        #expect(text.contains("7 problems"))
    }

    @Test("missing required fields point at their parent and say what to add")
    func missingFields() throws {
        let yaml = """
            version: 1
            scenarios:
              one:
                vus: 2
            """
        let error = #expect(throws: ScenarioFileError.self) { try ScenarioParser.parse(yaml: yaml, file: "m.yaml") }
        let fields = Set(error?.issues.map(\.field) ?? [])
        #expect(fields == ["name", "target", "scenarios.one.executor"])
        #expect(error?.issues.first { $0.field == "scenarios.one.executor" }?.line == 4)
    }

    @Test("a YAML syntax error names its line")
    func syntaxError() throws {
        let yaml = "name: x\nscenarios:\n  a:\n    vus: 1\n   iterations: 2\n"
        let error = #expect(throws: ScenarioFileError.self) { try ScenarioParser.parse(yaml: yaml, file: "s.yaml") }
        #expect(error?.issues.count == 1)
        #expect(error?.issues.first?.line == 5)
        #expect(error?.issues.first?.problem.hasPrefix("YAML syntax") == true)
    }

    @Test(
        "a live target must be a FeatureServer URL",
        arguments: [
            ("https://host/arcgis/rest/services/Parks/FeatureServer/", true),
            ("https://host/arcgis/rest/services/Parks/MapServer", false),
            ("local", true),
        ])
    func targets(url: String, valid: Bool) {
        let yaml = "version: 2\nname: t\ntarget: \(url)\nscenarios:\n  a: {executor: shared-iterations, iterations: 1}\n"
        let plan = try? ScenarioParser.parse(yaml: yaml, file: "t.yaml")
        #expect((plan != nil) == valid)
        if url.hasPrefix("https"), let plan {
            #expect(plan.target == .url("https://host/arcgis/rest/services/Parks/FeatureServer"))
        }
    }

    @Test(
        "durations parse like k6's",
        arguments: [
            ("500ms", Duration.milliseconds(500)), ("30s", .seconds(30)), ("2m", .seconds(120)), ("1h", .seconds(3600)),
            ("1m30s", .seconds(90)), ("1.5s", .milliseconds(1500)),
        ])
    func durations(text: String, expected: Duration) {
        #expect(DurationText.parse(text) == expected)
    }

    @Test("durations without a unit or with junk are rejected", arguments: ["90", "s", "1x", "-5s", "1 m", ""])
    func badDurations(text: String) {
        #expect(DurationText.parse(text) == nil)
    }
}

@Suite struct RelationshipOperationPlanTests {
    static func plan(_ operation: String) -> String {
        "version: 2\nname: rel\ntarget: local\nscenarios:\n  s:\n    executor: shared-iterations\n    vus: 1\n    iterations: 1\n" + operation
    }

    @Test("relate and deepInsert read their settings; relate needs a relationship and a known action")
    func settings() throws {
        let plan = try ScenarioParser.parse(
            yaml: Self.plan("    exec: deepInsert\n    relationship: 0\n    children: 4\n    attachments: 2\n    size: 8KB\n"), file: "d.yaml")
        let op = try #require(plan.scenarios.first?.operations.first)
        if case .deepInsert(let deep) = op.settings {
            #expect(deep.children == 4 && deep.attachments == 2 && deep.files.size.min == 8 * 1024)
        } else {
            Issue.record("not a deepInsert")
        }
        #expect(op.editsPerIteration == 7)
        #expect(op.addsPerIteration == 1)

        let error = #expect(throws: ScenarioFileError.self) {
            try ScenarioParser.parse(yaml: Self.plan("    exec: relate\n    layer: 1\n    action: unrelte\n    children: 3\n"), file: "r.yaml")
        }
        let byField = Dictionary(grouping: error?.issues ?? [], by: \.field)
        #expect(byField["scenarios.s.action"]?.first?.fix.contains("did you mean `unrelate`") == true)
        #expect(byField["scenarios.s.relationship"]?.first?.problem.contains("needs the relationship") == true)
        #expect(byField["scenarios.s.children"]?.first?.problem.contains("does not apply to relate") == true)
    }

    @Test("the plan check puts a deep insert on the origin and a one-to-many relate on the destination")
    func roles() throws {
        let origin = LayerInfo(
            id: 0, name: "Requests", type: "Table", geometryType: nil, objectIdField: "OBJECTID", globalIdField: "GlobalID", fields: [],
            relationships: [
                RelationshipInfo(
                    id: 0, name: "comments", relatedTableId: 1, cardinality: .oneToMany, role: .origin, keyField: "GlobalID", composite: false)
            ])
        let destination = LayerInfo(
            id: 1, name: "Comments", type: "Table", geometryType: nil, objectIdField: "OBJECTID", globalIdField: "GlobalID", fields: [],
            relationships: [
                RelationshipInfo(
                    id: 0, name: "comments", relatedTableId: 0, cardinality: .oneToMany, role: .destination, keyField: "request_guid",
                    composite: false)
            ])
        let layers = [0: origin, 1: destination]
        let wrong = try ScenarioParser.parse(
            yaml: Self.plan(
                "    mix:\n      - { operation: relate, relationship: 0, layer: 0 }\n      - { operation: deepInsert, relationship: 0, layer: 1 }\n"),
            file: "w.yaml")
        let problems = PlanCheck.check(wrong, layers: layers)
        #expect(problems.count == 2)
        #expect(problems.contains { $0.contains("relate changes the foreign key") && $0.contains("use `layer: 1`") })
        #expect(problems.contains { $0.contains("a deep insert adds the parent") && $0.contains("use `layer: 0`") })
        let right = try ScenarioParser.parse(
            yaml: Self.plan(
                "    mix:\n      - { operation: relate, relationship: 0, layer: 1 }\n      - { operation: deepInsert, relationship: 0, layer: 0 }\n"),
            file: "r.yaml")
        #expect(PlanCheck.check(right, layers: layers).isEmpty)
    }
}

@Suite struct ScenarioVersionTests {
    @Test("a file without `version` is refused: the two versions run its scenarios differently, and the fix shows both")
    func versionRequired() throws {
        let yaml =
            "name: t\ntarget: local\nscenarios:\n  a: {executor: shared-iterations, iterations: 1}\n  b: {executor: shared-iterations, iterations: 1}\n"
        let error = #expect(throws: ScenarioFileError.self) { try ScenarioParser.parse(yaml: yaml, file: "t.yaml") }
        let issue = try #require(error?.issues.first)
        #expect(error?.issues.count == 1)
        #expect(issue.field == "version")
        #expect(issue.line == 1)
        #expect(issue.problem.contains("one after another") && issue.problem.contains("at the same time"), "\(issue.problem)")
        #expect(issue.fix.contains("version: 2") && issue.fix.contains("version: 1"))
        let two = try ScenarioParser.parse(yaml: "version: 2\n" + yaml, file: "t.yaml")
        #expect(!two.isSequential)
        let one = try ScenarioParser.parse(yaml: "version: 1\n" + yaml, file: "t.yaml")
        #expect(one.isSequential)
    }
}
