import Testing

@testable import BatchApply

/// What the verifier expects of the service, from a journal's edits: edits superseded by a later edit of the same
/// feature are left out and counted.
@Suite struct ExpectedFeaturesTests {
    static func id(_ index: Int) -> String { "{00000000-0000-4000-8000-\(String(repeating: "0", count: 11))\(index)}" }

    static func edit(
        _ position: Int, _ kind: InputEdit.Kind, _ status: EditStatus, layer: Int = 0, globalId: String? = nil, objectId: Int64? = nil,
        result: Int64? = nil
    ) -> JournalEdit {
        let planned = PlannedEdit(
            position: InputPosition(index: position), kind: kind, layer: layer, globalId: globalId, objectId: objectId, payload: "", source: "")
        return JournalEdit(planned: planned, batch: 0, status: status, resultObjectId: result)
    }

    @Test("applied adds are expected once, unapplied ones absent, applied deletes gone, by layer")
    func plain() {
        var expected = ExpectedFeatures()
        expected.note(Self.edit(0, .add, .applied, globalId: Self.id(1), result: 11))
        expected.note(Self.edit(1, .add, .rejected, globalId: Self.id(2)))
        expected.note(Self.edit(2, .add, .applied, layer: 1, globalId: Self.id(3)))
        expected.note(Self.edit(3, .delete, .applied, objectId: 40))
        expected.note(Self.edit(4, .delete, .applied, layer: 1, globalId: Self.id(4)))
        expected.note(Self.edit(5, .delete, .failed, objectId: 41))
        expected.note(Self.edit(6, .update, .applied, objectId: 11))
        let expectation = expected.expectation()
        #expect(expectation.appliedAdds[0] == [ExpectedFeatures.Add(globalId: Self.id(1), objectId: 11, position: 0)])
        #expect(expectation.appliedAdds[1] == [ExpectedFeatures.Add(globalId: Self.id(3), objectId: nil, position: 2)])
        #expect(expectation.unappliedAdds == [0: [Self.id(2)]])
        #expect(expectation.deletedObjectIds == [0: [40]])
        #expect(expectation.deletedGlobalIds == [1: [Self.id(4)]])
        #expect(expectation.superseded == 0)
    }

    @Test("an add deleted later (by GlobalID or by the objectId it got) and a delete whose GlobalID a later add reused are superseded")
    func superseded() {
        var expected = ExpectedFeatures()
        expected.note(Self.edit(0, .add, .applied, globalId: Self.id(1), result: 11))
        expected.note(Self.edit(1, .add, .applied, globalId: Self.id(2), result: 12))
        expected.note(Self.edit(2, .delete, .applied, globalId: Self.id(1)))
        expected.note(Self.edit(3, .delete, .applied, objectId: 12))
        expected.note(Self.edit(4, .delete, .applied, globalId: Self.id(5)))
        expected.note(Self.edit(5, .add, .applied, globalId: Self.id(5), result: 15))
        // A delete before the add it would supersede does not.
        expected.note(Self.edit(6, .delete, .applied, objectId: 16))
        expected.note(Self.edit(7, .add, .applied, globalId: Self.id(6), result: 16))
        let expectation = expected.expectation()
        #expect(expectation.appliedAdds[0]?.map(\.position) == [5, 7])
        #expect(expectation.deletedGlobalIds[0] == [Self.id(1)])
        #expect(expectation.deletedObjectIds[0] == [12, 16])
        #expect(expectation.superseded == 3)
    }
}
