import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import Testing

/// Attachments through the real libcurl transport against the local service on port 0 (real SQLite).
@Suite struct AttachmentIntegrationTests {
    /// A fresh temporary directory, removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("attachments-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static func write(_ bytes: [UInt8], _ name: String, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    @Test("add, list, download, update, queryAttachments and delete keep names, keywords and exact bytes", .timeLimit(.minutes(1)))
    func roundTrip() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let photo = Self.bytes(70_000, seed: 1)
        let notes = Array("new notes\r\n--featureload-\r\n".utf8)
        let photoPath = try Self.write(photo, "photo.jpg", in: directory)
        let notesPath = try Self.write(notes, "notes.txt", in: directory)
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let layer = FeatureLayerClient(url: server.serviceURL + "/0", transport: transport)
                let added = try await layer.addAttachment(objectId: 1, file: photoPath, keywords: "site,photo")
                #expect(added.success)
                let id = try #require(added.objectId)

                let infos = try await layer.attachments(objectId: 1)
                #expect(infos.count == 1)
                #expect(infos.first?.id == id && infos.first?.name == "photo.jpg" && infos.first?.contentType == "image/jpeg")
                #expect(infos.first?.size == 70_000 && infos.first?.keywords == "site,photo")

                let downloaded = directory.appendingPathComponent("download.bin").path
                #expect(try await layer.downloadAttachment(objectId: 1, attachmentId: id, to: downloaded) == 70_000)
                #expect(try Array(Data(contentsOf: URL(fileURLWithPath: downloaded))) == photo)

                let updated = try await layer.updateAttachment(objectId: 1, attachmentId: id, file: notesPath, contentType: "text/plain")
                #expect(updated.success && updated.objectId == id)
                try await layer.downloadAttachment(objectId: 1, attachmentId: id, to: downloaded)
                #expect(try Array(Data(contentsOf: URL(fileURLWithPath: downloaded))) == notes)
                #expect(try await layer.attachments(objectId: 1).first?.name == "notes.txt")

                _ = try await layer.addAttachment(objectId: 2, file: photoPath, name: "second.jpg")
                let groups = try await layer.queryAttachments(objectIds: [1, 2, 3])
                #expect(groups.attachmentGroups.map(\.parentObjectId).sorted() == [1, 2])
                #expect(groups.attachmentGroups.first { $0.parentObjectId == 2 }?.attachmentInfos?.first?.name == "second.jpg")
                let counted = try await layer.queryAttachments(definitionExpression: "1=1", returnCountOnly: true)
                #expect(counted.attachmentGroups.compactMap(\.count).reduce(0, +) == 2)

                let deleted = try await layer.deleteAttachments(objectId: 1, attachmentIds: [id])
                #expect(deleted.map(\.success) == [true] && deleted.first?.objectId == id)
                #expect(try await layer.attachments(objectId: 1).isEmpty)
            }
        }
    }

    @Test("files above the threshold go through uploads in parallel parts, for add and update", .timeLimit(.minutes(1)))
    func smallThresholdUploads() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = Self.bytes(10_001, seed: 2)
        let second = Self.bytes(4_097, seed: 3)
        let firstPath = try Self.write(first, "first.bin", in: directory)
        let secondPath = try Self.write(second, "second.png", in: directory)
        let options = AttachmentUploadOptions(threshold: 1_000, partSize: 1_024, concurrency: 3)
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let layer = FeatureLayerClient(url: server.serviceURL + "/0", transport: transport)
                let added = try await layer.addAttachment(objectId: 4, file: firstPath, options: options)
                let id = try #require(added.objectId)
                let downloaded = directory.appendingPathComponent("out").path
                try await layer.downloadAttachment(objectId: 4, attachmentId: id, to: downloaded)
                #expect(try Array(Data(contentsOf: URL(fileURLWithPath: downloaded))) == first)
                let updated = try await layer.updateAttachment(objectId: 4, attachmentId: id, file: secondPath, options: options)
                #expect(updated.success)
                try await layer.downloadAttachment(objectId: 4, attachmentId: id, to: downloaded)
                #expect(try Array(Data(contentsOf: URL(fileURLWithPath: downloaded))) == second)
                let info = try #require(try await layer.attachments(objectId: 4).first)
                #expect(info.name == "second.png" && info.contentType == "image/png" && info.size == 4_097)
            }
        }
    }

    @Test("names never carry a directory: sent names lose it, and downloads go only where the caller says", .timeLimit(.minutes(1)))
    func pathSafety() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try Self.write(Array("x".utf8), "plain.txt", in: directory)
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let layer = FeatureLayerClient(url: server.serviceURL + "/0", transport: transport)
                let added = try await layer.addAttachment(objectId: 5, file: path, name: "../../../etc/evil.txt")
                let info = try #require(try await layer.attachments(objectId: 5).first { $0.id == added.objectId })
                #expect(info.name == "evil.txt")
                let saveDirectory = directory.appendingPathComponent("saved")
                try FileManager.default.createDirectory(at: saveDirectory, withIntermediateDirectories: true)
                let target = saveDirectory.appendingPathComponent(info.name).path
                try await layer.downloadAttachment(objectId: 5, attachmentId: info.id, to: target)
                #expect(try FileManager.default.contentsOfDirectory(atPath: saveDirectory.path) == ["evil.txt"])
                #expect(!FileManager.default.fileExists(atPath: directory.deletingLastPathComponent().appendingPathComponent("evil.txt").path))
            }
        }
    }

    @Test("a layer without attachments, an unknown attachment and a missing file fail with the operation named", .timeLimit(.minutes(1)))
    func errors() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try Self.write(Array("x".utf8), "a.txt", in: directory)
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let species = FeatureLayerClient(url: server.serviceURL + "/1", transport: transport)
                let listing = await #expect(throws: FeatureServiceError.self) { try await species.attachments(objectId: 1) }
                #expect(listing?.operation == "attachments" && listing?.arcgisError?.code == 400, "\(String(describing: listing))")
                let adding = await #expect(throws: FeatureServiceError.self) { try await species.addAttachment(objectId: 1, file: path) }
                #expect(adding?.operation == "addAttachment" && adding?.arcgisError?.code == 400)
                let querying = await #expect(throws: FeatureServiceError.self) { try await species.queryAttachments(objectIds: [1]) }
                #expect(querying?.operation == "queryAttachments" && querying?.arcgisError != nil)

                let parks = FeatureLayerClient(url: server.serviceURL + "/0", transport: transport)
                let download = await #expect(throws: FeatureServiceError.self) {
                    try await parks.downloadAttachment(objectId: 1, attachmentId: 424_242, to: directory.appendingPathComponent("none").path)
                }
                #expect(download?.operation == "downloadAttachment" && download?.arcgisError?.code == 404)
                #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("none").path))
                let missing = await #expect(throws: FeatureServiceError.self) {
                    try await parks.addAttachment(objectId: 1, file: directory.appendingPathComponent("absent.jpg").path)
                }
                #expect(missing?.operation == "addAttachment" && missing?.description.contains("absent.jpg") == true)
            }
        }
    }
}
