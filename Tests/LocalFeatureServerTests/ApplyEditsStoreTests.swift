import FeatureModel
import Foundation
import Testing

@testable import LocalFeatureServer

@Suite struct ApplyEditsStoreTests {
    @Test("a fresh database holds the seeded parks and species", .timeLimit(.minutes(1)))
    func seeded() async throws {
        try await withStore { store in
            #expect(try store.rowCount(layerId: 0) == 12)
            #expect(try store.rowCount(layerId: 1) == 30)
            let parks = try await store.features(layerId: 0, where: "name = 'Yellowstone'")
            #expect(parks.count == 1)
            #expect(parks.first?.attributes["GlobalID"] == .string(ParksDataset.parkGlobalIDs[0]))
            #expect(parks.first?.geometry == .point(x: -110.5885, y: 44.4280))
        }
    }

    @Test("adds return new object IDs and GlobalIDs, and the rows are queryable", .timeLimit(.minutes(1)))
    func adds() async throws {
        try await withStore { store in
            let result = try await store.applyEdits(layerId: 0, batch: EditBatch(adds: [parkAdd(), parkAdd(["name": "Second"])]))
            #expect(result.addResults.map(\.success) == [true, true])
            #expect(result.addResults.map(\.objectId) == [13, 14])
            #expect(result.addResults.allSatisfy { $0.globalId.flatMap(GlobalID.normalized) == $0.globalId })
            let added = try await store.features(layerId: 0, where: "OBJECTID >= 13")
            #expect(added.map { $0.attributes["name"] } == ["Test Park", "Second"])
            #expect(added.first?.geometry == .point(x: -100, y: 40))
        }
    }

    struct InvalidAdd: Sendable, CustomStringConvertible {
        var description: String
        var edit: FeatureEdit
        var code: Int
    }

    static let invalidAdds: [InvalidAdd] = [
        InvalidAdd(description: "unknown field", edit: parkAdd(["nope": 1]), code: 1000),
        InvalidAdd(description: "string in a number field", edit: parkAdd(["visitors": "many"]), code: 1016),
        InvalidAdd(description: "fractional number in an integer field", edit: parkAdd(["visitors": 1.5]), code: 1016),
        InvalidAdd(description: "SmallInteger out of range", edit: parkAdd(["category": 70_000]), code: 1016),
        InvalidAdd(description: "number in a text field", edit: parkAdd(["state": 12]), code: 1016),
        InvalidAdd(description: "boolean in a number field", edit: parkAdd(["visitors": true]), code: 1016),
        InvalidAdd(description: "string longer than the field", edit: parkAdd(["state": "COL"]), code: 1016),
        InvalidAdd(description: "null in a non-nullable field", edit: parkAdd(["name": nil]), code: 1001),
        InvalidAdd(
            description: "missing non-nullable field",
            edit: FeatureEdit(attributes: ["state": "CO"], geometry: nil),
            code: 1001
        ),
        InvalidAdd(description: "value outside a coded-value domain", edit: parkAdd(["category": 7]), code: 1019),
        InvalidAdd(description: "value outside a range domain", edit: parkAdd(["area_km2": 100_001]), code: 1019),
        InvalidAdd(description: "polygon on a point layer", edit: parkAdd(geometry: ["rings": [[[0, 0], [1, 1], [0, 1], [0, 0]]]]), code: 1015),
        InvalidAdd(
            description: "unsupported spatial reference",
            edit: parkAdd(geometry: ["x": 1, "y": 2, "spatialReference": ["wkid": 2229]]),
            code: 1015
        ),
    ]

    @Test("invalid adds fail with the ArcGIS edit error code", .timeLimit(.minutes(1)), arguments: invalidAdds)
    func invalidAdd(_ invalid: InvalidAdd) async throws {
        try await withStore { store in
            let batch = EditBatch(adds: [parkAdd(["name": "Good"]), invalid.edit], rollbackOnFailure: false)
            let result = try await store.applyEdits(layerId: 0, batch: batch)
            #expect(result.addResults.count == 2)
            #expect(result.addResults[0].success)
            #expect(result.addResults[1].success == false)
            #expect(result.addResults[1].error?.code == invalid.code)
            #expect(try store.rowCount(layerId: 0) == 13)
        }
    }

    @Test("a non-editable field cannot be written (1023); OBJECTID on adds is ignored", .timeLimit(.minutes(1)))
    func notEditable() async throws {
        var definition = ParksDataset.definition
        definition.layers[0].info.fields.append(Field(name: "audited", type: .integer, editable: false))
        try await withStore(definition) { store in
            let result = try await store.applyEdits(
                layerId: 0,
                batch: EditBatch(adds: [parkAdd(["audited": 1]), parkAdd(["OBJECTID": 999])], rollbackOnFailure: false)
            )
            #expect(result.addResults[0].error?.code == 1023)
            #expect(result.addResults[1].success)
            #expect(result.addResults[1].objectId == 13)
        }
    }

    @Test("rollbackOnFailure=true with one bad edit writes nothing and throws the rolled-back envelope", .timeLimit(.minutes(1)))
    func rollback() async throws {
        try await withStore { store in
            let batch = EditBatch(
                adds: [parkAdd(), parkAdd(["name": nil])],
                updates: [FeatureEdit(attributes: ["OBJECTID": 1, "visitors": 5])],
                deletes: [.objectId(2)]
            )
            let error = await #expect(throws: ServiceError.self) { try await store.applyEdits(layerId: 0, batch: batch) }
            #expect(error?.error.code == 400)
            #expect(error?.error.extendedCode == -2_147_207_418)
            #expect(error?.error.message == "Unable to complete operation.")
            #expect(error?.error.details.last == "Operation rolled back.")
            #expect(error?.error.details.first?.contains("adds[1]") == true)
            #expect(error?.error.details.first?.contains("1001") == true)
            #expect(try store.rowCount(layerId: 0) == 12)
            let first = try await store.features(layerId: 0, where: "OBJECTID = 1")
            #expect(first.first?.attributes["visitors"] == 4_501_382)
            // Nothing was written, and the failed transaction did not consume object IDs... or did: either way, never reused.
            let next = try await store.applyEdits(layerId: 0, batch: EditBatch(adds: [parkAdd()]))
            #expect((next.addResults.first?.objectId ?? 0) >= 13)
        }
    }

    @Test("rollbackOnFailure=false applies the good edits and reports the bad ones", .timeLimit(.minutes(1)))
    func partial() async throws {
        try await withStore { store in
            let batch = EditBatch(
                adds: [parkAdd(), parkAdd(["category": 9])],
                updates: [FeatureEdit(attributes: ["OBJECTID": 1, "visitors": 5]), FeatureEdit(attributes: ["OBJECTID": 999, "visitors": 5])],
                deletes: [.objectId(3), .objectId(998)],
                rollbackOnFailure: false
            )
            let result = try await store.applyEdits(layerId: 0, batch: batch)
            #expect(result.addResults.map(\.success) == [true, false])
            #expect(result.updateResults.map(\.success) == [true, false])
            #expect(result.updateResults[1].error?.code == 1011)
            #expect(result.updateResults[1].objectId == 999)
            #expect(result.deleteResults.map(\.success) == [true, false])
            #expect(result.deleteResults[1].error?.code == 1011)
            #expect(result.deleteResults[0].globalId == ParksDataset.parkGlobalIDs[2])
            #expect(try store.rowCount(layerId: 0) == 12)  // +1 add, -1 delete
            #expect(try await store.features(layerId: 0, where: "OBJECTID = 1").first?.attributes["visitors"] == 5)
        }
    }

    @Test("useGlobalIds keeps submitted GlobalIDs (normalised); a duplicate fails with 1022", .timeLimit(.minutes(1)))
    func globalIds() async throws {
        try await withStore { store in
            let submitted = "a1b2c3d4-0000-4000-8000-00000000abcd"
            let batch = EditBatch(
                adds: [
                    parkAdd(["GlobalID": .string(submitted)]), parkAdd(["GlobalID": .string("{\(submitted)}")]),
                    parkAdd(["GlobalID": .string(ParksDataset.parkGlobalIDs[0])]),
                ],
                rollbackOnFailure: false,
                useGlobalIds: true
            )
            let result = try await store.applyEdits(layerId: 0, batch: batch)
            #expect(result.addResults[0].success)
            #expect(result.addResults[0].globalId == "{A1B2C3D4-0000-4000-8000-00000000ABCD}")
            #expect(result.addResults[1].error?.code == 1022)
            #expect(result.addResults[2].error?.code == 1022)
            // Without useGlobalIds a submitted GlobalID is replaced.
            let plain = try await store.applyEdits(layerId: 0, batch: EditBatch(adds: [parkAdd(["GlobalID": .string(submitted)])]))
            #expect(plain.addResults[0].success)
            #expect(plain.addResults[0].globalId != "{A1B2C3D4-0000-4000-8000-00000000ABCD}")
            // With rollback, the duplicate undoes everything.
            await #expect(throws: ServiceError.self) {
                try await store.applyEdits(
                    layerId: 0,
                    batch: EditBatch(adds: [parkAdd(), parkAdd(["GlobalID": .string(submitted)])], useGlobalIds: true)
                )
            }
            #expect(try store.rowCount(layerId: 0) == 14)
        }
    }

    @Test("updates and deletes by GlobalID with useGlobalIds", .timeLimit(.minutes(1)))
    func byGlobalId() async throws {
        try await withStore { store in
            let yosemite = ParksDataset.parkGlobalIDs[1].lowercased().dropFirst().dropLast()
            let result = try await store.applyEdits(
                layerId: 0,
                batch: EditBatch(
                    updates: [FeatureEdit(attributes: ["GlobalID": .string(String(yosemite)), "visitors": 7])],
                    deletes: [.globalId(ParksDataset.parkGlobalIDs[2])],
                    useGlobalIds: true
                )
            )
            #expect(result.updateResults.first?.objectId == 2)
            #expect(result.deleteResults.first?.objectId == 3)
            #expect(try await store.features(layerId: 0, where: "OBJECTID = 2").first?.attributes["visitors"] == 7)
        }
    }

    @Test("deleting a park deletes its species (composite relationship)", .timeLimit(.minutes(1)))
    func cascade() async throws {
        try await withStore { store in
            let yellowstone = ParksDataset.parkGlobalIDs[0]
            #expect(try await store.features(layerId: 1, where: "park_guid = '\(yellowstone)'").count == 4)
            let result = try await store.applyEdits(layerId: 0, batch: EditBatch(deletes: [.objectId(1)]))
            #expect(result.deleteResults.first?.success == true)
            #expect(try await store.features(layerId: 1, where: "park_guid = '\(yellowstone)'").isEmpty)
            #expect(try store.rowCount(layerId: 1) == 26)
            #expect(try store.rowCount(layerId: 0) == 11)
        }
    }

    @Test("object IDs are never reused after deletes", .timeLimit(.minutes(1)))
    func objectIdsNotReused() async throws {
        try await withStore { store in
            let first = try await store.applyEdits(layerId: 0, batch: EditBatch(adds: [parkAdd()]))
            let id = try #require(first.addResults.first?.objectId)
            _ = try await store.applyEdits(layerId: 0, batch: EditBatch(deletes: [.objectId(id), .objectId(12)]))
            let second = try await store.applyEdits(layerId: 0, batch: EditBatch(adds: [parkAdd()]))
            #expect(second.addResults.first?.objectId == id + 1)
        }
    }

    @Test("updates validate like adds and may set nullable fields to null", .timeLimit(.minutes(1)))
    func updates() async throws {
        try await withStore { store in
            let result = try await store.applyEdits(
                layerId: 0,
                batch: EditBatch(
                    updates: [
                        FeatureEdit(attributes: ["OBJECTID": 1, "state": nil], geometry: ["x": 1.0, "y": 2.0]),
                        FeatureEdit(attributes: ["OBJECTID": 2, "name": nil]), FeatureEdit(attributes: ["visitors": 1]),
                        FeatureEdit(attributes: ["OBJECTID": 3]),
                    ],
                    rollbackOnFailure: false
                )
            )
            #expect(result.updateResults.map(\.success) == [true, false, false, true])
            #expect(result.updateResults[1].error?.code == 1001)
            #expect(result.updateResults[2].error?.code == 1000)
            let park = try #require(try await store.features(layerId: 0, where: "OBJECTID = 1").first)
            #expect(park.attributes["state"] == .null)
            #expect(park.geometry == .point(x: 1, y: 2))
        }
    }

    @Test("Web Mercator points are stored as WGS 84", .timeLimit(.minutes(1)))
    func webMercator() async throws {
        try await withStore { store in
            let result = try await store.applyEdits(
                layerId: 0,
                batch: EditBatch(adds: [parkAdd(geometry: ["x": 0, "y": 0, "spatialReference": ["wkid": 102100]])])
            )
            let id = try #require(result.addResults.first?.objectId)
            #expect(try await store.features(layerId: 0, where: "OBJECTID = \(id)").first?.geometry == .point(x: 0, y: 0))
        }
    }

    @Test("returnEditMoment reports the injected clock", .timeLimit(.minutes(1)))
    func editMoment() async throws {
        try await withStore { store in
            let result = try await store.applyEdits(layerId: 1, batch: EditBatch(deletes: [.objectId(1)], returnEditMoment: true))
            #expect(result.editMoment == 1_700_000_000_000)
            let plain = try await store.applyEdits(layerId: 1, batch: EditBatch(deletes: [.objectId(2)]))
            #expect(plain.editMoment == nil)
        }
    }

    @Test("reopening a database file keeps its rows; another dataset's file is refused", .timeLimit(.minutes(1)))
    func reopen() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("parks.sqlite")
        let store = try FeatureStore.open(path: path, definition: ParksDataset.definition) { 0 }
        _ = try await store.applyEdits(layerId: 0, batch: EditBatch(adds: [parkAdd(["name": "Kept"])], deletes: [.objectId(5)]))
        try await store.close()

        let reopened = try FeatureStore.open(path: path, definition: ParksDataset.definition) { 0 }
        #expect(try reopened.rowCount(layerId: 0) == 12)
        #expect(try await reopened.features(layerId: 0, where: "name = 'Kept'").count == 1)
        let next = try await reopened.applyEdits(layerId: 0, batch: EditBatch(adds: [parkAdd()]))
        #expect(next.addResults.first?.objectId == 14)
        try await reopened.close()

        var other = ParksDataset.definition
        other.name = "other"
        #expect(throws: StoreOpenError.self) { _ = try FeatureStore.open(path: path, definition: other, now: { 0 }) }
    }

    @Test("a batch of 1000 adds is one transaction and lands completely", .timeLimit(.minutes(1)))
    func largeBatch() async throws {
        try await withStore { store in
            let adds = (0..<1000).map { parkAdd(["name": .string("Bulk \($0)"), "visitors": .int(Int64($0))]) }
            let result = try await store.applyEdits(layerId: 0, batch: EditBatch(adds: adds))
            #expect(result.addResults.count == 1000)
            #expect(result.addResults.allSatisfy { $0.success })
            #expect(try store.rowCount(layerId: 0) == 1012)
            // One transaction: a batch of 999 good adds and a last one that cannot be stored adds nothing.
            var bad = (0..<999).map { parkAdd(["name": .string("More \($0)")]) }
            bad.append(parkAdd(["name": nil]))
            await #expect(throws: ServiceError.self) { try await store.applyEdits(layerId: 0, batch: EditBatch(adds: bad)) }
            #expect(try store.rowCount(layerId: 0) == 1012)
        }
    }
}
