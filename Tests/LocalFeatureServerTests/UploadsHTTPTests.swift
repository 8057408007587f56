import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import LocalFeatureServer
import Testing

/// The `uploads` resource and attachments through applyEdits, over real HTTP (libcurl, server on port 0, real SQLite).
@Suite struct UploadsHTTPTests {
    typealias W = AttachmentWire

    static func register(_ transport: CurlTransport, _ uploads: String, name: String) async throws -> String {
        let answer = W.json(
            try await transport.send(
                HTTPRequest.form(
                    url: "\(uploads)/register", fields: [FormField("itemName", name), FormField("description", "parts"), FormField("f", "json")])))
        #expect(answer["success"] == .bool(true))
        #expect(answer["item"]?["committed"] == .bool(false))
        return try #require(answer["item"]?["itemID"]?.stringValue)
    }

    static func uploadPart(_ transport: CurlTransport, _ uploads: String, _ itemId: String, _ partId: Int, _ bytes: [UInt8]) async throws {
        let answer = W.json(
            try await transport.send(
                W.multipart(
                    "\(uploads)/\(itemId)/uploadPart",
                    [
                        .field("f", "json"), .field("partId", "\(partId)"),
                        .file(name: "file", filename: "blob", contentType: "application/octet-stream", bytes: bytes),
                    ])))
        #expect(answer["success"] == .bool(true), "\(answer)")
    }

    @Test(
        "upload, register, uploadPart, parts, commit, item and delete; committed items feed addAttachment and updateAttachment",
        .timeLimit(.minutes(1)))
    func uploads() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let uploads = server.serviceURL + "/uploads"
                let layer = server.serviceURL + "/0"
                let whole = W.bytes(300_000, seed: 3)
                let uploaded = W.json(
                    try await transport.send(
                        W.multipart(
                            "\(uploads)/upload",
                            [
                                .field("f", "json"), .field("description", "a photo"),
                                .file(name: "file", filename: "site.jpg", contentType: "image/jpeg", bytes: whole),
                            ])))
                #expect(uploaded["success"] == .bool(true), "\(uploaded)")
                #expect(uploaded["item"]?["committed"] == .bool(true))
                #expect(uploaded["item"]?["itemName"] == "site.jpg")
                #expect(uploaded["item"]?["description"] == "a photo")
                let itemId = try #require(uploaded["item"]?["itemID"]?.stringValue)
                #expect(W.json(try await transport.send(HTTPRequest(url: "\(uploads)/\(itemId)?f=json")))["item"]?["size"]?.intValue == 300_000)

                let added = W.json(
                    try await transport.send(W.multipart("\(layer)/2/addAttachment", [.field("f", "json"), .field("uploadId", itemId)])))
                let attachmentId = try #require(added["addAttachmentResult"]?["objectId"]?.intValue, "\(added)")
                let download = try await transport.send(HTTPRequest(url: "\(layer)/2/attachments/\(attachmentId)"))
                #expect(download.body == whole)
                #expect(download.header("Content-Type") == "image/jpeg")

                // Parts arrive out of order; commit joins them in the order given.
                let parts = [W.bytes(100_000, seed: 11), W.bytes(70_001, seed: 12), W.bytes(5, seed: 13)]
                let partsItem = try await Self.register(transport, uploads, name: "joined.bin")
                for partId in [2, 3, 1] { try await Self.uploadPart(transport, uploads, partsItem, partId, parts[partId - 1]) }
                let listed = W.json(try await transport.send(HTTPRequest(url: "\(uploads)/\(partsItem)/parts?f=json")))
                #expect(listed["parts"] == ["1", "2", "3"])
                let committed = W.json(
                    try await transport.send(
                        HTTPRequest.form(url: "\(uploads)/\(partsItem)/commit", fields: [FormField("parts", "1,2,3"), FormField("f", "json")])))
                #expect(committed["item"]?["committed"] == .bool(true), "\(committed)")
                #expect(committed["item"]?["size"]?.intValue == 170_006)
                #expect(W.json(try await transport.send(HTTPRequest(url: "\(uploads)/\(partsItem)/parts?f=json")))["parts"] == [])
                let again = try await transport.send(HTTPRequest.form(url: "\(uploads)/\(partsItem)/commit", fields: [FormField("parts", "1")]))
                #expect(W.errorCode(again) == 400)

                let updated = W.json(
                    try await transport.send(
                        W.multipart("\(layer)/2/updateAttachment", [.field("attachmentId", "\(attachmentId)"), .field("uploadId", partsItem)])))
                #expect(updated["updateAttachmentResult"]?["success"] == .bool(true), "\(updated)")
                #expect(try await transport.send(HTTPRequest(url: "\(layer)/2/attachments/\(attachmentId)")).body == parts[0] + parts[1] + parts[2])

                let reordered = try await Self.register(transport, uploads, name: "r.bin")
                for partId in 1...2 { try await Self.uploadPart(transport, uploads, reordered, partId, parts[partId - 1]) }
                _ = try await transport.send(HTTPRequest.form(url: "\(uploads)/\(reordered)/commit", fields: [FormField("parts", "2,1")]))
                let second = W.json(try await transport.send(W.multipart("\(layer)/2/addAttachment", [.field("uploadId", reordered)])))
                let secondId = try #require(second["addAttachmentResult"]?["objectId"]?.intValue)
                #expect(try await transport.send(HTTPRequest(url: "\(layer)/2/attachments/\(secondId)")).body == parts[1] + parts[0])

                // An uncommitted item cannot be used; a missing part cannot be committed.
                let open = try await Self.register(transport, uploads, name: "open.bin")
                let early = W.json(try await transport.send(W.multipart("\(layer)/2/addAttachment", [.field("uploadId", open)])))
                #expect(early["addAttachmentResult"]?["success"] == .bool(false), "\(early)")
                #expect(
                    W.errorCode(try await transport.send(HTTPRequest.form(url: "\(uploads)/\(open)/commit", fields: [FormField("parts", "1,2")])))
                        == 400)

                for item in [itemId, partsItem, open] {
                    #expect(
                        W.json(try await transport.send(HTTPRequest.form(url: "\(uploads)/\(item)/delete", fields: [FormField("f", "json")])))[
                            "success"] == .bool(true))
                    #expect(W.errorCode(try await transport.send(HTTPRequest(url: "\(uploads)/\(item)?f=json"))) == 404)
                }
                // The attachments made from deleted items keep their bytes.
                #expect(try await transport.send(HTTPRequest(url: "\(layer)/2/attachments/\(attachmentId)")).body == parts[0] + parts[1] + parts[2])
            }
        }
    }

    @Test(
        "applyEdits attachments: a feature and its photos in one call; updates, deletes, rollback and cascade leave no stray attachment",
        .timeLimit(.minutes(1)))
    func applyEditsAttachments() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let layer = server.serviceURL + "/0"
                let uploads = server.serviceURL + "/uploads"
                let parent = "{5C3A2F10-1D2B-4C5D-8E9F-0A1B2C3D4E5F}"
                let first = "{0F0E0D0C-0B0A-4908-8706-050403020100}"
                let second = "{1F0E0D0C-0B0A-4908-8706-050403020101}"
                let photo = W.bytes(2_000, seed: 21)
                let item = try #require(
                    W.json(
                        try await transport.send(
                            W.multipart("\(uploads)/upload", [.file(name: "file", filename: "u.bin", contentType: nil, bytes: photo)])))["item"]?[
                            "itemID"]?.stringValue)
                let adds =
                    #"[{"attributes":{"GlobalID":"\#(parent)","name":"Photo Park","state":"CO","category":1,"visitors":1},"geometry":{"x":-105,"y":40}}]"#
                let attachments = """
                    {"adds":[{"globalId":"\(first)","parentGlobalId":"\(parent.lowercased())","contentType":"text/plain","name":"../note.txt","data":"\(Data("hello".utf8).base64EncodedString())"},
                             {"globalId":"\(second)","parentGlobalId":"\(parent)","name":"photo.jpg","uploadId":"\(item)"}]}
                    """
                let answer = W.json(
                    try await transport.send(
                        W.multipart(
                            "\(layer)/applyEdits",
                            [
                                .field("f", "json"), .field("useGlobalIds", "true"), .field("rollbackOnFailure", "true"), .field("adds", adds),
                                .field("attachments", attachments),
                            ])))
                #expect(answer["addResults"]?[0]?["success"] == .bool(true), "\(answer)")
                let objectId = try #require(answer["addResults"]?[0]?["objectId"]?.intValue)
                let results = try #require(answer["attachments"]?["addResults"]?.arrayValue, "\(answer)")
                #expect(results.map { $0["globalId"] } == [.string(first), .string(second)])
                #expect(results.allSatisfy { $0["success"] == .bool(true) })
                let infos =
                    W.json(try await transport.send(HTTPRequest(url: "\(layer)/\(objectId)/attachments?f=json")))["attachmentInfos"]?.arrayValue ?? []
                #expect(infos.map { $0["name"] } == ["note.txt", "photo.jpg"])
                #expect(infos.map { $0["contentType"] } == ["text/plain", "image/jpeg"])
                let noteId = try #require(infos.first?["id"]?.intValue)
                #expect(try await transport.send(HTTPRequest(url: "\(layer)/\(objectId)/attachments/\(noteId)")).body == Array("hello".utf8))
                let photoId = try #require(infos.last?["id"]?.intValue)
                #expect(try await transport.send(HTTPRequest(url: "\(layer)/\(objectId)/attachments/\(photoId)")).body == photo)

                // Update one by GlobalID, delete the other.
                let edit =
                    #"{"updates":[{"globalId":"\#(first)","name":"note2.txt","data":"\#(Data("bye".utf8).base64EncodedString())"}],"deletes":["\#(second)"]}"#
                let edited = W.json(
                    try await transport.send(
                        HTTPRequest.form(
                            url: "\(layer)/applyEdits",
                            fields: [FormField("useGlobalIds", "true"), FormField("attachments", edit), FormField("f", "json")])))
                #expect(edited["attachments"]?["updateResults"]?[0]?["globalId"] == .string(first), "\(edited)")
                #expect(edited["attachments"]?["deleteResults"]?[0]?["success"] == .bool(true))
                #expect(try await transport.send(HTTPRequest(url: "\(layer)/\(objectId)/attachments/\(noteId)")).body == Array("bye".utf8))

                // Rollback: a bad feature in the batch leaves neither the good feature nor its attachment.
                let before = try await Self.totalAttachments(transport, layer)
                let other = "{2A0E0D0C-0B0A-4908-8706-050403020102}"
                let badAdds = #"[{"attributes":{"GlobalID":"\#(other)","name":"Good","state":"CO","category":1}},{"attributes":{"name":null}}]"#
                let rollback =
                    #"{"adds":[{"globalId":"{3A0E0D0C-0B0A-4908-8706-050403020103}","parentGlobalId":"\#(other)","name":"x.txt","data":"eA=="}]}"#
                let refused = try await transport.send(
                    W.multipart(
                        "\(layer)/applyEdits",
                        [.field("useGlobalIds", "true"), .field("adds", badAdds), .field("attachments", rollback), .field("f", "json")]))
                #expect(W.errorCode(refused) == 400, "\(Wire.text(refused))")
                #expect(try await Self.totalAttachments(transport, layer) == before)
                // A bad attachment rolls back its feature too.
                let orphan = #"{"adds":[{"parentGlobalId":"{9A0E0D0C-0B0A-4908-8706-0504030201FF}","name":"x.txt","data":"eA=="}]}"#
                let featureAndOrphan = #"[{"attributes":{"GlobalID":"\#(other)","name":"Good","state":"CO","category":1}}]"#
                let refusedAgain = try await transport.send(
                    HTTPRequest.form(
                        url: "\(layer)/applyEdits",
                        fields: [FormField("useGlobalIds", "true"), FormField("adds", featureAndOrphan), FormField("attachments", orphan)]))
                #expect(
                    WireJSON.error(in: refusedAgain.body)?.details.contains { $0.contains("attachments.adds[0]") } == true,
                    "\(Wire.text(refusedAgain))")
                let query = W.json(try await transport.send(HTTPRequest(url: "\(layer)/query?where=name%3D%27Good%27&returnCountOnly=true&f=json")))
                #expect(query["count"]?.intValue == 0)
                // Without useGlobalIds attachments are refused.
                let plain = try await transport.send(HTTPRequest.form(url: "\(layer)/applyEdits", fields: [FormField("attachments", edit)]))
                #expect(W.errorCode(plain) == 400)

                // Deleting the feature deletes its attachments.
                let deleted = W.json(
                    try await transport.send(
                        HTTPRequest.form(url: "\(layer)/applyEdits", fields: [FormField("deletes", "\(objectId)"), FormField("f", "json")])))
                #expect(deleted["deleteResults"]?[0]?["success"] == .bool(true))
                #expect(try await Self.totalAttachments(transport, layer) == before - 1)
                #expect(W.errorCode(try await transport.send(HTTPRequest(url: "\(layer)/\(objectId)/attachments/\(noteId)"))) == 404)
            }
        }
    }

    @Test("service-level applyEdits carries attachments per layer in the same transaction", .timeLimit(.minutes(1)))
    func serviceLevel() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let parent = "{6C3A2F10-1D2B-4C5D-8E9F-0A1B2C3D4E5F}"
                let attachment = "{7C3A2F10-1D2B-4C5D-8E9F-0A1B2C3D4E5F}"
                let edits = """
                    [{"id":0,"adds":[{"attributes":{"GlobalID":"\(parent)","name":"Service Park","state":"UT","category":1}}],
                      "attachments":{"adds":[{"globalId":"\(attachment)","parentGlobalId":"\(parent)","name":"s.txt","contentType":"text/plain","data":"c2VydmljZQ=="}]}}]
                    """
                let answer = W.json(
                    try await transport.send(
                        W.multipart(server.serviceURL + "/applyEdits", [.field("edits", edits), .field("useGlobalIds", "true"), .field("f", "json")]))
                )
                #expect(answer[0]?["attachments"]?["addResults"]?[0]?["globalId"] == .string(attachment), "\(answer)")
                let objectId = try #require(answer[0]?["addResults"]?[0]?["objectId"]?.intValue)
                let infos = W.json(try await transport.send(HTTPRequest(url: server.serviceURL + "/0/\(objectId)/attachments?f=json")))
                let id = try #require(infos["attachmentInfos"]?[0]?["id"]?.intValue)
                #expect(
                    try await transport.send(HTTPRequest(url: server.serviceURL + "/0/\(objectId)/attachments/\(id)")).body == Array("service".utf8))

                // The same transaction: an attachment that cannot be stored (its parent does not exist) takes the
                // feature added beside it back out.
                let orphan = "{8C3A2F10-1D2B-4C5D-8E9F-0A1B2C3D4E5F}"
                let failing = """
                    [{"id":0,"adds":[{"attributes":{"GlobalID":"\(orphan)","name":"Rolled Park","state":"UT","category":1}}],
                      "attachments":{"adds":[{"globalId":"{9C3A2F10-1D2B-4C5D-8E9F-0A1B2C3D4E5F}","parentGlobalId":"{00000000-1D2B-4C5D-8E9F-0A1B2C3D4E5F}","name":"o.txt","contentType":"text/plain","data":"b3JwaGFu"}]}}]
                    """
                let refused = try await transport.send(
                    W.multipart(server.serviceURL + "/applyEdits", [.field("edits", failing), .field("useGlobalIds", "true"), .field("f", "json")]))
                #expect(W.errorCode(refused) != nil, "\(W.json(refused))")
                let rolled = W.json(
                    try await transport.send(
                        HTTPRequest(url: server.serviceURL + "/0/query?where=name%3D%27Rolled%20Park%27&returnCountOnly=true&f=json")))
                #expect(rolled["count"] == .int(0), "\(rolled)")
            }
        }
    }

    /// Total attachments in layer `layer`, through queryAttachments counts.
    static func totalAttachments(_ transport: CurlTransport, _ layer: String) async throws -> Int64 {
        let answer = W.json(try await transport.send(HTTPRequest(url: layer + "/queryAttachments?returnCountOnly=true&f=json")))
        return answer["attachmentGroups"]?.arrayValue?.reduce(0) { $0 + ($1["count"]?.intValue ?? 0) } ?? -1
    }
}
