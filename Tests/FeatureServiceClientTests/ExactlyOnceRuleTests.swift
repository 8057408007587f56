import FeatureModel
import FeatureServiceClient
import Testing

@Suite struct ExactlyOnceRuleTests {
    static let idA = "{AAAAAAAA-0000-4000-8000-000000000001}"
    static let idB = "{aaaaaaaa-0000-4000-8000-000000000002}"

    static func add(_ globalId: String?) -> Feature {
        var attributes: [String: JSONValue] = ["name": "x"]
        if let globalId { attributes["GlobalID"] = .string(globalId) }
        return Feature(attributes: attributes)
    }

    @Test("adds count as keyed only when every add has a GlobalID and useGlobalIds is on")
    func keyedAdds() {
        let keyed = LayerEdits(adds: [Self.add(Self.idA), Self.add(Self.idB)])
        #expect(
            ExactlyOnceRule.addGlobalIds(keyed, options: .init(useGlobalIds: true), globalIdField: "GlobalID")
                == [Self.idA, "{AAAAAAAA-0000-4000-8000-000000000002}"], "normalized to upper case with braces")
        #expect(ExactlyOnceRule.addGlobalIds(keyed, options: .init(useGlobalIds: false), globalIdField: "GlobalID") == nil)
        let mixed = LayerEdits(adds: [Self.add(Self.idA), Self.add(nil)])
        #expect(ExactlyOnceRule.addGlobalIds(mixed, options: .init(useGlobalIds: true), globalIdField: "GlobalID") == nil)
        #expect(ExactlyOnceRule.addGlobalIds(LayerEdits(deletes: [1]), options: .init(), globalIdField: "GlobalID") == [])
    }

    @Test("encoded adds count as keyed only with the GlobalIDs their maker vouches for, after the Feature adds")
    func encodedAdds() {
        let options = ApplyEditsOptions(useGlobalIds: true)
        var edits = LayerEdits(adds: [Self.add(Self.idA)])
        edits.encodedAdds = EncodedFeatures(
            json: #"[{"attributes":{"GlobalID":"\#(Self.idB)"}}]"#, count: 1, globalIds: ["{AAAAAAAA-0000-4000-8000-000000000002}"])
        #expect(
            ExactlyOnceRule.addGlobalIds(edits, options: options, globalIdField: "GlobalID") == [Self.idA, "{AAAAAAAA-0000-4000-8000-000000000002}"])
        edits.encodedAdds?.globalIds = nil
        #expect(ExactlyOnceRule.addGlobalIds(edits, options: options, globalIdField: "GlobalID") == nil, "unkeyed without them")
        edits.encodedAdds?.globalIds = []
        #expect(ExactlyOnceRule.addGlobalIds(edits, options: options, globalIdField: "GlobalID") == nil, "one GlobalID per encoded add")
    }

    @Test("after an ambiguous failure: replay, check first, or abandon the adds")
    func actions() {
        let keyed = LayerEdits(adds: [Self.add(Self.idA)])
        let unkeyed = LayerEdits(adds: [Self.add(nil)], deletes: [7])
        func action(_ edits: LayerEdits, rollback: Bool, globalIds: Bool) -> ExactlyOnceRule.AmbiguityAction {
            ExactlyOnceRule.actionAfterAmbiguousFailure(
                edits, options: .init(rollbackOnFailure: rollback, useGlobalIds: globalIds), globalIdField: "GlobalID")
        }
        #expect(action(keyed, rollback: false, globalIds: true) == .replay)
        #expect(action(keyed, rollback: true, globalIds: true) == .verify(.addedGlobalIds([Self.idA])))
        #expect(action(unkeyed, rollback: false, globalIds: false) == .abandonAdds(replayRest: true))
        #expect(action(unkeyed, rollback: true, globalIds: false) == .abandonAdds(replayRest: false))
        #expect(action(keyed, rollback: true, globalIds: false) == .abandonAdds(replayRest: false), "GlobalIDs are dropped without useGlobalIds")
        #expect(action(LayerEdits(deletes: [3, 4]), rollback: true, globalIds: false) == .verify(.deletedObjectIds([3, 4])))
        #expect(action(LayerEdits(deletes: [3, 4]), rollback: false, globalIds: false) == .replay)
        #expect(action(LayerEdits(updates: [Self.add(nil)]), rollback: true, globalIds: false) == .replay, "updates are idempotent")
    }

    @Test("a verification is applied, not applied or partial")
    func verification() {
        let adds = ExactlyOnceRule.VerificationTarget.addedGlobalIds([Self.idA, Self.idB])
        #expect(ExactlyOnceRule.verification(of: adds, found: 2) == .applied)
        #expect(ExactlyOnceRule.verification(of: adds, found: 0) == .notApplied)
        #expect(ExactlyOnceRule.verification(of: adds, found: 1) == .partial(found: 1, expected: 2))
        let deletes = ExactlyOnceRule.VerificationTarget.deletedObjectIds([1, 2, 3])
        #expect(ExactlyOnceRule.verification(of: deletes, found: 0) == .applied)
        #expect(ExactlyOnceRule.verification(of: deletes, found: 3) == .notApplied)
        #expect(ExactlyOnceRule.verification(of: deletes, found: 2) == .partial(found: 2, expected: 3))
    }

    @Test("after an ambiguous attempt a duplicate add (1022) and a missing delete (1011) count as applied earlier")
    func replayOutcomes() {
        let result = ApplyEditsResult(
            addResults: [
                EditResult(objectId: 5, globalId: Self.idA, success: true),
                .failure(globalId: Self.idB, code: 1022, description: "Unique constraint violation"),
                .failure(code: 1001, description: "Field name cannot be null."),
            ],
            updateResults: [.failure(objectId: 9, code: 1011, description: "Object is missing.")],
            deleteResults: [.failure(objectId: 3, code: 1011, description: "Object is missing.")])
        let replay = ExactlyOnceRule.outcomes(of: result, ambiguousBefore: true, keyedAdds: true)
        #expect(replay.adds.map(\.status) == [.applied, .appliedByEarlierAttempt, .failed])
        #expect(replay.updates.map(\.status) == [.failed], "an update of a missing row is a failure")
        #expect(replay.deletes.map(\.status) == [.appliedByEarlierAttempt])
        #expect(replay.adds[2].result?.error == EditError(code: 1001, description: "Field name cannot be null."))

        let first = ExactlyOnceRule.outcomes(of: result, ambiguousBefore: false, keyedAdds: true)
        #expect(first.adds.map(\.status) == [.applied, .failed, .failed], "without an earlier ambiguous attempt a 1022 is a real conflict")
        #expect(first.deletes.map(\.status) == [.failed])
        let unkeyed = ExactlyOnceRule.outcomes(of: result, ambiguousBefore: true, keyedAdds: false)
        #expect(unkeyed.adds.map(\.status) == [.applied, .failed, .failed])
    }
}
