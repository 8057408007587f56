import FeatureModel
import Foundation
import NIOCore
import Testing

@testable import LocalFeatureServer

/// Attachments in the store and the pure pieces around them: composite cascades, name sanitising, routes,
/// queryAttachments paging, and the chunked multipart parser.
@Suite struct AttachmentStoreTests {
    @Test("a composite cascade deletes the attachments of the child rows it deletes", .timeLimit(.minutes(1)))
    func compositeCascade() async throws {
        var definition = ParksDataset.definition
        definition.layers[1].info.hasAttachments = true
        try await withStore(definition) { store in
            let species = try #require(try await store.features(layerId: 1).first)
            let speciesId = try #require(species.attributes["OBJECTID"]?.intValue)
            let parkKey = try #require(species.attributes["park_guid"]?.stringValue)
            let content = AttachmentContent(name: "bird.jpg", contentType: "image/jpeg", keywords: nil, source: .bytes([1, 2, 3]))
            let added = try await store.addAttachment(layerId: 1, objectId: speciesId, content: content)
            #expect(added.success)
            let parkAttachment = try await store.addAttachment(
                layerId: 0, objectId: 1, content: AttachmentContent(name: "p.txt", contentType: nil, keywords: nil, source: .bytes([9])))
            #expect(parkAttachment.success)
            let before = try await store.attachmentCount()
            let park = try #require(try await store.features(layerId: 0).first { $0.attributes["GlobalID"]?.stringValue == parkKey })
            let parkId = try #require(park.attributes["OBJECTID"]?.intValue)
            let result = try await store.applyEdits(layerId: 0, batch: EditBatch(deletes: [.objectId(parkId)]))
            #expect(result.deleteResults.first?.success == true)
            let expectedGone = parkId == 1 ? 2 : 1
            #expect(try await store.attachmentCount() == before - expectedGone)
            await #expect(throws: ServiceError.self) { _ = try await store.attachments(layerId: 1, objectId: speciesId) }
        }
    }

    @Test(
        "stored names are plain file names",
        arguments: [
            ("photo.jpg", "photo.jpg"), ("../../etc/passwd", "passwd"), (#"C:\Users\x\..\boot.ini"#, "boot.ini"), ("../", "attachment"),
            ("..", "attachment"), ("", "attachment"), (".env", "env"), ("a\u{0}b\r\n.txt", "ab.txt"), (" spaced name.pdf ", "spaced name.pdf"),
        ])
    func names(sent: String, stored: String) {
        #expect(AttachmentName.sanitized(sent) == stored)
    }

    @Test("content types are kept when well formed, else application/octet-stream")
    func contentTypes() {
        #expect(AttachmentName.contentType("Image/JPEG; charset=x") == "image/jpeg")
        #expect(AttachmentName.contentType("text/plain\r\nX-Evil: 1") == "application/octet-stream")
        #expect(AttachmentName.contentType("nonsense") == "application/octet-stream")
        #expect(AttachmentName.contentType(nil) == "application/octet-stream")
        #expect(AttachmentName.contentType(forName: "A.PNG") == "image/png")
        #expect(AttachmentName.contentType(forName: "noextension") == "application/octet-stream")
    }

    @Test("attachment and upload paths route; anything else does not")
    func routes() {
        let base = "/arcgis/rest/services/parks/FeatureServer"
        #expect(FeatureServerRoute(path: base + "/0/12/attachments") == .attachments(service: "parks", layer: 0, objectId: 12))
        #expect(FeatureServerRoute(path: base + "/0/12/attachments/3") == .attachment(service: "parks", layer: 0, objectId: 12, attachmentId: 3))
        #expect(
            FeatureServerRoute(path: base + "/0/12/AddAttachment")
                == .attachmentEdit(service: "parks", layer: 0, objectId: 12, operation: .addAttachment))
        #expect(
            FeatureServerRoute(path: base + "/0/12/deleteAttachments/")
                == .attachmentEdit(service: "parks", layer: 0, objectId: 12, operation: .deleteAttachments))
        #expect(FeatureServerRoute(path: base + "/0/queryAttachments") == .queryAttachments(service: "parks", layer: 0))
        #expect(FeatureServerRoute(path: base + "/uploads/upload") == .uploads(service: "parks", .upload))
        #expect(FeatureServerRoute(path: base + "/uploads/iAbC/uploadPart") == .uploads(service: "parks", .uploadPart("iAbC")))
        #expect(FeatureServerRoute(path: base + "/uploads/iabc/parts") == .uploads(service: "parks", .parts("iabc")))
        for path in [
            base + "/0/x/attachments", base + "/0/-1/attachments", base + "/0/1/attachments/x", base + "/0/1/attachments/1/2",
            base + "/uploads/a/b/c", base + "/uploads",
        ] {
            #expect(FeatureServerRoute(path: path) == nil, "\(path)")
        }
        #expect(
            !UploadItemID.isValid("../x") && !UploadItemID.isValid("") && !UploadItemID.isValid("a/b") && UploadItemID.isValid(UploadItemID.make()))
    }

    @Test("queryAttachments pages over attachments, groups by feature, and counts ignore paging")
    func queryAnswer() throws {
        var rows: [AttachmentRow] = []
        for index in 1...5 {
            let contentType = index.isMultiple(of: 2) ? "image/png" : "text/plain"
            let info = AttachmentInfo(
                id: Int64(index), name: "f\(index)", contentType: contentType, size: Int64(index * 10), keywords: "k\(index),all")
            rows.append(AttachmentRow(parentObjectId: Int64((index + 1) / 2), parentGlobalId: nil, info: info))
        }
        func query(_ output: AttachmentQuery.Output) -> AttachmentQuery { AttachmentQuery(parents: SQLFragment("1=1"), output: output) }
        let page = query(.infos(offset: 1, limit: 2)).answer(rows)
        #expect(page.attachmentGroups.map(\.parentObjectId) == [1, 2])
        #expect(page.attachmentGroups.flatMap { $0.attachmentInfos ?? [] }.map(\.id) == [2, 3])
        #expect(page.exceededTransferLimit == true)
        #expect(query(.infos(offset: 4, limit: 2)).answer(rows).exceededTransferLimit == nil)
        #expect(query(.counts).answer(rows).attachmentGroups.map(\.count) == [2, 2, 1])
        var images = query(.counts)
        images.attachmentTypes = ["image"]
        #expect(images.answer(rows).attachmentGroups.map(\.count) == [1, 1])
        var keyword = query(.infos(offset: 0, limit: 10))
        keyword.keywords = ["k5"]
        #expect(keyword.answer(rows).attachmentGroups.flatMap { $0.attachmentInfos ?? [] }.map(\.id) == [5])
    }

    @Test("a multipart body fed in any chunking gives the same fields and files; large parts spill to a temporary file")
    func chunkedMultipart() throws {
        let boundary = "b0undary"
        let file = (0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) } + Array("\r\n--b0undar".utf8) + [13, 10, 45]
        var body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\njson\r\n".utf8)
        body += Array(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"attachment\"; filename=\"../a.bin\"\r\nContent-Type: image/png\r\n\r\n".utf8)
        body += file + Array("\r\n--\(boundary)--\r\n".utf8)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for chunkSize in [1, 7, 4096, body.count] {
            for threshold in [100, Int.max] {
                let accumulator = MultipartAccumulator(
                    boundary: boundary,
                    limits: .init(fieldBytes: 1000, fileBytes: 10_000, spillThreshold: threshold, temporaryRoot: directory.url.path))
                var offset = 0
                while offset < body.count {
                    try accumulator.feed(ByteBuffer(bytes: body[offset..<min(offset + chunkSize, body.count)]))
                    offset += chunkSize
                }
                let form = try accumulator.finish()
                defer { form.removeFiles() }
                #expect(form.fields == [FormField("f", "json")])
                let part = try #require(form.files.first)
                #expect(part.fieldName == "attachment" && part.filename == "../a.bin" && part.contentType == "image/png")
                #expect(part.size == file.count)
                #expect(try part.bytes() == file, "chunk \(chunkSize) threshold \(threshold)")
                if case .file(let path) = part.storage {
                    #expect(threshold == 100 && path.hasPrefix(directory.url.path))
                } else {
                    #expect(threshold == Int.max)
                }
            }
        }
        let limited = MultipartAccumulator(
            boundary: boundary, limits: .init(fieldBytes: 1000, fileBytes: 100, spillThreshold: 10, temporaryRoot: directory.url.path))
        #expect(throws: ServiceError.self) { try limited.feed(ByteBuffer(bytes: body)) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }
}
