import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import Testing

/// Deep insert with attachments: a new park, its new species and files attached to the new park, in one
/// service-level applyEdits against the real local service (only the parks layer has attachments).
@Suite struct DeepInsertAttachmentIntegrationTests {
    /// Small files go inline; files above 1,000 bytes go through uploads in parts of 1 KiB.
    static let smallThreshold = AttachmentUploadOptions(threshold: 1_000, partSize: 1_024, concurrency: 2)

    /// A park with two species staged, and two files attached to the park: `photo.jpg` (600 bytes, inline) and
    /// `map.pdf` (5,000 bytes, through uploads).
    static func stage(
        _ parks: ServiceFeatureTable, _ species: ServiceFeatureTable, park name: String, in directory: URL
    ) async throws -> (park: Feature, children: [Feature], files: [String: [UInt8]]) {
        let (park, children) = try await DeepInsertIntegrationTests.stage(parks, species, park: name, species: ["Pika", "Marten"])
        let photo = AttachmentIntegrationTests.bytes(600, seed: 11)
        let map = AttachmentIntegrationTests.bytes(5_000, seed: 12)
        let photoPath = try AttachmentIntegrationTests.write(photo, "photo.jpg", in: directory)
        let mapPath = try AttachmentIntegrationTests.write(map, "map.pdf", in: directory)
        try await parks.addAttachment(to: park, file: photoPath, options: smallThreshold)
        try await parks.addAttachment(to: park, file: mapPath, options: smallThreshold)
        return (park, children, ["photo.jpg": photo, "map.pdf": map])
    }

    /// Attachments of every feature of layer 0.
    static func attachmentCount(_ parks: ServiceFeatureTable) async throws -> Int {
        let groups = try await parks.client.queryAttachments(definitionExpression: "1=1", returnCountOnly: true)
        return groups.attachmentGroups.compactMap(\.count).reduce(0, +)
    }

    @Test("a park, two species and two photos of the new park are written in one call; the bytes download identical", .timeLimit(.minutes(1)))
    func deepInsertWithAttachments() async throws {
        let directory = try AttachmentIntegrationTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withLocalService(dataset: "parks") { service, _, _ in
            let parks = try await service.table(id: 0)
            let species = try await service.table(id: 1)
            let (park, _, files) = try await Self.stage(parks, species, park: "Great Basin", in: directory)
            let parkGlobalId = try #require(park.string("GlobalID"))
            let pending = await parks.pendingAttachments
            #expect(pending.map(\.name) == ["photo.jpg", "map.pdf"])
            #expect(pending.allSatisfy { $0.parentGlobalId == parkGlobalId })
            #expect(pending.map(\.contentType) == ["image/jpeg", "application/pdf"])

            let results = try await service.applyEditsAndAttachments(tables: [parks, species])
            #expect(results.features.count == 3)
            #expect(results.attachments.count == 2)
            #expect(results.allApplied)
            #expect(results.attachments.map(\.globalId) == pending.map(\.globalId))
            #expect(results.attachments.allSatisfy { $0.attachmentId != nil && $0.error == nil })
            #expect(await parks.hasLocalEdits == false)
            #expect(await parks.pendingAttachments.isEmpty)
            #expect(await species.hasLocalEdits == false)

            let stored = try #require(try await parks.queryAllFeatures(QueryParameters(whereClause: "GlobalID = '\(parkGlobalId)'")).first)
            let objectId = try #require(stored[attribute: "OBJECTID"]?.intValue)
            #expect(try await DeepInsertIntegrationTests.count(species, "park_guid = '\(parkGlobalId)'") == 2)
            let infos = try await parks.client.attachments(objectId: objectId)
            #expect(infos.map(\.name).sorted() == ["map.pdf", "photo.jpg"])
            #expect(Set(infos.compactMap(\.globalId).compactMap(GlobalID.normalized)) == Set(pending.map(\.globalId)))
            for info in infos {
                let path = directory.appendingPathComponent("download-\(info.id)").path
                try await parks.client.downloadAttachment(objectId: objectId, attachmentId: info.id, to: path)
                #expect(try Array(Data(contentsOf: URL(fileURLWithPath: path))) == files[info.name])
            }
        }
    }

    @Test("one invalid species rolls back the park, both species and both attachments, which stay pending", .timeLimit(.minutes(1)))
    func rolledBackByInvalidChild() async throws {
        let directory = try AttachmentIntegrationTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withLocalService(dataset: "parks") { service, _, _ in
            let parks = try await service.table(id: 0)
            let species = try await service.table(id: 1)
            let before = try await Self.attachmentCount(parks)
            let (park, children, _) = try await Self.stage(parks, species, park: "Lassen", in: directory)
            var invalid = children[1]
            invalid.attributes["common_name"] = nil  // not nullable: code 1001 on the service
            try await species.update(invalid)

            let results = try await service.applyEditsAndAttachments(tables: [parks, species])
            #expect(results.features.count == 3 && results.attachments.count == 2)
            #expect(results.features.allSatisfy { $0.status == .failed })
            #expect(results.attachments.allSatisfy { $0.status == .failed && $0.error != nil && $0.attachmentId == nil })
            let parkGlobalId = try #require(park.string("GlobalID"))
            #expect(try await DeepInsertIntegrationTests.count(parks, "GlobalID = '\(parkGlobalId)'") == 0)
            #expect(try await DeepInsertIntegrationTests.count(species, "park_guid = '\(parkGlobalId)'") == 0)
            #expect(try await Self.attachmentCount(parks) == before)
            let stillPending = await parks.pendingAttachments
            #expect(stillPending.count == 2)
            #expect(stillPending.allSatisfy { $0.lastError != nil })
            #expect(await parks.pendingEdits.count == 1)
        }
    }

    @Test("an injected per-edit failure leaves no park, species or attachment; the same edits apply once the faults stop", .timeLimit(.minutes(1)))
    func rolledBackByInjectedFailure() async throws {
        let directory = try AttachmentIntegrationTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withLocalService(dataset: "parks") { service, server, transport in
            let parks = try await service.table(id: 0)
            let species = try await service.table(id: 1)
            let before = try await Self.attachmentCount(parks)
            let (park, _, files) = try await Self.stage(parks, species, park: "Pinnacles", in: directory)
            let parkGlobalId = try #require(park.string("GlobalID"))
            try await setFaults(
                #"{"seed":3,"faults":[{"kind":"editFailure","rate":1,"path":"*/FeatureServer/applyEdits"}]}"#, server: server, transport: transport)

            let failed = try await service.applyEditsAndAttachments(tables: [parks, species])
            #expect(failed.features.count == 3 && failed.attachments.count == 2)
            #expect(failed.features.allSatisfy { $0.status == .failed })
            #expect(failed.attachments.allSatisfy { $0.status == .failed && $0.error != nil })
            #expect(try await DeepInsertIntegrationTests.count(parks, "GlobalID = '\(parkGlobalId)'") == 0)
            #expect(try await DeepInsertIntegrationTests.count(species, "park_guid = '\(parkGlobalId)'") == 0)
            #expect(try await Self.attachmentCount(parks) == before)
            #expect(await parks.pendingAttachments.count == 2)

            try await setFaults(#"{"faults":[]}"#, server: server, transport: transport)
            let applied = try await service.applyEditsAndAttachments(tables: [parks, species])
            #expect(applied.allApplied && applied.attachments.count == 2)
            #expect(await parks.pendingAttachments.isEmpty)
            #expect(try await Self.attachmentCount(parks) == before + 2)
            let stored = try #require(try await parks.queryAllFeatures(QueryParameters(whereClause: "GlobalID = '\(parkGlobalId)'")).first)
            let objectId = try #require(stored[attribute: "OBJECTID"]?.intValue)
            let map = try #require(try await parks.client.attachments(objectId: objectId).first { $0.name == "map.pdf" })
            let path = directory.appendingPathComponent("map-download.pdf").path
            #expect(try await parks.client.downloadAttachment(objectId: objectId, attachmentId: map.id, to: path) == 5_000)
            #expect(try Array(Data(contentsOf: URL(fileURLWithPath: path))) == files["map.pdf"])
        }
    }

    @Test("attachments are refused in memory on a table without attachments and for a feature without a GlobalID", .timeLimit(.minutes(1)))
    func refusedInMemory() async throws {
        let directory = try AttachmentIntegrationTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try AttachmentIntegrationTests.write([1, 2, 3], "note.txt", in: directory)
        try await withLocalService(dataset: "parks") { service, _, _ in
            let parks = try await service.table(id: 0)
            let species = try await service.table(id: 1)
            #expect(species.info.hasAttachments != true)
            let child = await species.add(species.makeFeature(attributes: ["common_name": "Pika"]))
            await #expect(throws: FeatureServiceError.self) { try await species.addAttachment(to: child, file: path) }
            await #expect(throws: FeatureServiceError.self) { try await parks.addAttachment(to: Feature(attributes: ["name": "x"]), file: path) }
            let park = await parks.add(parks.makeFeature(attributes: ["name": "Joshua Tree"]))
            await #expect(throws: FeatureServiceError.self) { try await parks.addAttachment(to: park, file: path + ".missing") }
            let pending = try await parks.addAttachment(to: park, file: path)
            #expect(await parks.pendingAttachments == [pending])
            try await parks.delete(park)  // a pending add disappears with its attachments
            #expect(await parks.pendingAttachments.isEmpty)
            #expect(await parks.hasLocalEdits == false)
        }
    }
}
