import FeatureModel
import Testing

@Suite struct EditResultWireTests {
    @Test("applyEdits results with failed items (one without objectId) list them in failures")
    func partialFailure() throws {
        let json = #"""
            {"addResults":[{"objectId":618,"globalId":"{74100804-E229-49b8-8CDC-9B5D3EF03EDA}","success":true},
                           {"success":false,"error":{"code":1000,"description":"Invalid value for NAME"}},
                           {"objectId":-1,"success":false,"error":{"code":1019,"description":"Violated attribute constraint rule.","extendedCode":-2147207418}}],
             "updateResults":[{"objectId":50,"success":true}],
             "deleteResults":[{"objectId":25,"globalId":"{8A1D2E9F-0000-4000-8000-000000000025}","success":false,
                               "error":{"code":1011,"description":"Object is missing"}}],
             "editMoment":1690000000000}
            """#
        let result = try roundTrip(ApplyEditsResult.self, json)
        #expect(result.addResults.count == 3)
        #expect(result.addResults[0].objectId == 618)
        #expect(result.addResults[1].objectId == nil)
        #expect(result.addResults[2].objectId == -1)
        #expect(result.addResults[2].error?.extendedCode == -2_147_207_418)
        #expect(result.editMoment == 1_690_000_000_000)
        #expect(result.attachments == nil)
        #expect(result.failures.map { $0.error?.code } == [1000, 1019, 1011])
    }

    @Test("attachment results count among failures")
    func attachmentResults() throws {
        let json = #"""
            {"addResults":[],"updateResults":[],"deleteResults":[],
             "attachments":{"addResults":[{"objectId":3,"globalId":"{55E8BC9A-0000-4000-8000-000000000001}","success":true}],
                            "updateResults":[],"deleteResults":[{"objectId":4,"success":false,"error":{"code":1010,"description":"Delete attachment failed"}}]}}
            """#
        let result = try roundTrip(ApplyEditsResult.self, json)
        #expect(result.attachments?.addResults.first?.objectId == 3)
        #expect(result.failures.map(\.objectId) == [4])
    }

    @Test("a service-level applyEdits answer is an array of per-layer results with ids")
    func serviceLevel() throws {
        let json = #"""
            [{"id":0,"addResults":[{"objectId":1,"success":true}],"updateResults":[],"deleteResults":[]},
             {"id":1,"addResults":[],"updateResults":[{"objectId":9,"success":false,"error":{"code":1019,"description":"x"}}],"deleteResults":[]}]
            """#
        let results = try roundTrip([ApplyEditsResult].self, json)
        #expect(results.map(\.id) == [0, 1])
        #expect(results[1].failures.count == 1)
    }

    @Test("missing result arrays decode as empty")
    func missingArrays() throws {
        let result = try roundTrip(ApplyEditsResult.self, #"{"addResults":[{"objectId":1,"success":true}]}"#)
        #expect(result.updateResults.isEmpty && result.deleteResults.isEmpty)
    }

    @Test("the rollback error envelope keeps code, extendedCode and details")
    func rollbackEnvelope() throws {
        let json = #"""
            {"error":{"code":400,"extendedCode":-2147207418,"message":"Unable to complete operation.",
              "details":["Violated attribute constraint rule. [Error No: -1, ]","Operation rolled back."]}}
            """#
        let envelope = try roundTrip(ErrorEnvelope.self, json)
        #expect(envelope.error.code == 400)
        #expect(envelope.error.extendedCode == -2_147_207_418)
        #expect(envelope.error.details.count == 2)
        let detected = try #require(WireJSON.error(in: Array(json.utf8)))
        #expect(detected == envelope.error)
        #expect(detected.description.contains("Operation rolled back."))
    }

    @Test("an error without details decodes with empty details and encodes them as []")
    func errorWithoutDetails() throws {
        let error = try #require(WireJSON.error(in: Array(#"  {"error":{"code":498,"message":"Invalid token."}}"#.utf8)))
        #expect(error.code == 498)
        #expect(error.details.isEmpty)
        #expect(error.extendedCode == nil)
        #expect(try WireJSON.string(ErrorEnvelope(error: error)).contains(#""details":[]"#))
    }

    @Test(
        "bodies that are not error envelopes are not mistaken for one",
        arguments: [
            #"{"addResults":[],"updateResults":[],"deleteResults":[]}"#,
            #"{"features":[{"attributes":{"error":"x"}}]}"#,
            "<html>error</html>",
            "",
            #"[{"id":0,"addResults":[]}]"#,
        ])
    func notAnError(body: String) {
        #expect(WireJSON.error(in: Array(body.utf8)) == nil)
    }

    @Test("edits encode as the form fields applyEdits expects")
    func editsFormFields() throws {
        let edits = LayerEdits(
            adds: [Feature(attributes: ["NAME": "A & B"], geometry: .point(x: 1, y: 2))],
            updates: [Feature(attributes: ["OBJECTID": 5, "NAME": nil])], deletes: [7, 8])
        let fields = edits.formFields(options: ApplyEditsOptions(rollbackOnFailure: false))
        let byName = Dictionary(fields.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        #expect(byName["f"] == "json")
        #expect(byName["deletes"] == "7,8")
        #expect(byName["rollbackOnFailure"] == "false")
        let adds = try WireJSON.decode([Feature].self, from: try #require(byName["adds"]))
        #expect(adds == edits.adds)
        let updates = try WireJSON.decode([Feature].self, from: try #require(byName["updates"]))
        #expect(updates.first?.attributes["NAME"] == .null)
        // And the whole body survives form encoding.
        #expect(FormEncoding.decode(FormEncoding.encode(fields)) == fields)
    }
}
