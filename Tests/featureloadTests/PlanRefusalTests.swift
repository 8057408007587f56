import FeatureloadTestSupport
import Foundation
import Testing

/// Everything `run` refuses before any load, `validate` refuses too: each plan-time refusal, walked through both
/// commands of the built binary against the embedded service.
@Suite struct PlanRefusalTests {
    /// A copy of the parks dataset whose Species table (layer 1) has no GlobalID field and no rows.
    static func bareSpecies(in directory: String) throws -> String {
        let parks = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Scenarios/datasets/parks.json")
        var dataset = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: parks)) as? [String: Any])
        var layers = try #require(dataset["layers"] as? [[String: Any]])
        layers[1]["globalIdField"] = nil
        layers[1]["fields"] = (layers[1]["fields"] as? [[String: Any]])?.filter { ($0["type"] as? String) != "esriFieldTypeGlobalID" }
        layers[1]["seedRows"] = [Any]()
        dataset["layers"] = layers
        let path = directory + "/bare-species.json"
        try JSONSerialization.data(withJSONObject: dataset).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("each plan-time refusal: validate and run both refuse it, naming the same field", .timeLimit(.minutes(5)))
    func walk() async throws {
        let directory = try TemporaryDirectory()
        let bare = try Self.bareSpecies(in: directory.path)
        // (what is refused, the local block, the scenario's settings, the field both must name)
        let cases: [(String, String, String, String)] = [
            ("a layer the service lacks", "{ dataset: parks }", "exec: query\n    layer: 7", "scenarios.s.layer"),
            (
                "client GlobalIDs without a GlobalID field", "{ dataset: \(bare) }",
                "exec: applyEdits\n    adds: 1\n    layer: 1\n    clientGlobalIds: true",
                "scenarios.s.clientGlobalIds"
            ),
            ("a relationship the layer lacks", "{ dataset: parks }", "exec: queryRelatedRecords\n    relationship: 5", "scenarios.s.relationship"),
            (
                "a deep insert on the destination", "{ dataset: parks }",
                "exec: deepInsert\n    layer: 1\n    relationship: 0\n    children: 1\n    attachments: 0",
                "scenarios.s.layer"
            ),
            ("relate on the origin", "{ dataset: parks }", "exec: relate\n    relationship: 0\n    setup: { seed: 5 }", "scenarios.s.layer"),
            (
                "deep-insert attachments on a layer without them", "{ dataset: customerorders }",
                "exec: deepInsert\n    relationship: 0\n    children: 1\n    attachments: 1", "scenarios.s.attachments"
            ),
            ("attachments on a layer without them", "{ dataset: parks }", "exec: addAttachment\n    layer: 1", "scenarios.s"),
            ("an envelope on a table", "{ dataset: parks }", "exec: query\n    layer: 1\n    envelope: 0.5", "scenarios.s.envelope"),
            (
                "updates on an empty layer, with nothing to add or seed", "{ dataset: \(bare) }",
                "exec: applyEdits\n    adds: 0\n    updates: 5\n    layer: 1",
                "scenarios.s.updates"
            ),
            ("a fault that does not parse", "{ dataset: parks, faults: [\"http503:2\"] }", "exec: query", "local.faults"),
            ("a dataset that does not exist", "{ dataset: nowhere }", "exec: query", "local.dataset"),
        ]
        for (index, (what, local, settings, field)) in cases.enumerated() {
            let file = directory.path + "/case\(index).yaml"
            try """
            version: 2
            name: refusal
            target: local
            local: \(local)
            scenarios:
              s:
                executor: shared-iterations
                vus: 1
                iterations: 2
                \(settings)
            """.write(toFile: file, atomically: true, encoding: .utf8)
            let validate = try await Featureload.run(["validate", file])
            #expect(validate.status == 2, "validate, \(what): \(validate.output) \(validate.errorOutput)")
            #expect(validate.errorOutput.contains(field), "validate, \(what): \(validate.errorOutput)")
            let run = try await Featureload.run(["run", file, "--quiet", "--out", directory.path + "/out\(index)"])
            #expect(run.status == 2, "run, \(what): \(run.output) \(run.errorOutput)")
            #expect(run.errorOutput.contains(field), "run, \(what): \(run.errorOutput)")
        }
    }
}
