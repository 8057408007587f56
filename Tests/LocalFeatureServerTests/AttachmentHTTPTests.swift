import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import LocalFeatureServer
import Testing

/// Attachments over real HTTP (libcurl against the server on port 0, real SQLite): add, list, download, update,
/// delete, queryAttachments, layers without attachments, names with `../`, the size limit and tokens.
@Suite struct AttachmentHTTPTests {
    typealias W = AttachmentWire

    static func add(
        _ transport: CurlTransport, _ layer: String, objectId: Int, filename: String, contentType: String?, bytes: [UInt8], keywords: String? = nil
    )
        async throws -> JSONValue
    {
        var parts: [W.Part] = [
            .field("f", "json"), .field("returnEditMoment", "False"),
            .file(name: "attachment", filename: filename, contentType: contentType, bytes: bytes),
        ]
        if let keywords { parts.append(.field("keywords", keywords)) }
        return W.json(try await transport.send(W.multipart("\(layer)/\(objectId)/addAttachment", parts)))
    }

    @Test("addAttachment, list, download, updateAttachment and deleteAttachments keep the exact bytes and content type", .timeLimit(.minutes(1)))
    func roundTrip() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let layer = server.serviceURL + "/0"
                let bytes = W.bytes(70_000)
                let added = try await Self.add(
                    transport, layer, objectId: 1, filename: "photo.jpg", contentType: "image/jpeg", bytes: bytes, keywords: "site,photo")
                #expect(added["addAttachmentResult"]?["success"] == .bool(true), "\(added)")
                let id = try #require(added["addAttachmentResult"]?["objectId"]?.intValue)
                #expect(GlobalID.normalized(added["addAttachmentResult"]?["globalId"]?.stringValue ?? "") != nil)

                let listed = W.json(try await transport.send(HTTPRequest(url: "\(layer)/1/attachments?f=json")))
                let info = try #require(listed["attachmentInfos"]?[0])
                #expect(listed["attachmentInfos"]?.arrayValue?.count == 1)
                #expect(info["id"]?.intValue == id)
                #expect(info["name"] == "photo.jpg")
                #expect(info["contentType"] == "image/jpeg")
                #expect(info["size"]?.intValue == 70_000)
                #expect(info["keywords"] == "site,photo")
                #expect(info["globalId"] == added["addAttachmentResult"]?["globalId"])

                let download = try await transport.send(HTTPRequest(url: "\(layer)/1/attachments/\(id)"))
                #expect(download.status == 200)
                #expect(download.header("Content-Type") == "image/jpeg")
                #expect(download.body == bytes)

                let replacement = Array("new notes\r\n--\r\n".utf8)
                let updated = W.json(
                    try await transport.send(
                        W.multipart(
                            "\(layer)/1/updateAttachment",
                            [
                                .field("f", "json"), .field("attachmentId", "\(id)"),
                                .file(name: "attachment", filename: "notes.txt", contentType: "text/plain", bytes: replacement),
                            ])))
                #expect(updated["updateAttachmentResult"]?["success"] == .bool(true), "\(updated)")
                #expect(updated["updateAttachmentResult"]?["objectId"]?.intValue == id)
                let second = try await transport.send(HTTPRequest(url: "\(layer)/1/attachments/\(id)?f=json"))
                #expect(second.body == replacement)
                #expect(second.header("Content-Type") == "text/plain")

                // All or nothing by default: one unknown id deletes nothing.
                let refused = try await transport.send(
                    W.multipart("\(layer)/1/deleteAttachments", [.field("f", "json"), .field("attachmentIds", "\(id),999999")]))
                #expect(W.errorCode(refused) == 400, "\(Wire.text(refused))")
                #expect(
                    W.json(try await transport.send(HTTPRequest(url: "\(layer)/1/attachments?f=json")))["attachmentInfos"]?.arrayValue?.count == 1)

                let deleted = W.json(
                    try await transport.send(
                        W.multipart(
                            "\(layer)/1/deleteAttachments",
                            [
                                .field("f", "json"), .field("attachmentIds", "\(id),999999"), .field("rollbackOnFailure", "false"),
                                .field("returnEditMoment", "false"),
                            ])))
                let results = try #require(deleted["deleteAttachmentResults"]?.arrayValue)
                #expect(results.count == 2)
                #expect(results[0]["objectId"]?.intValue == id && results[0]["success"] == .bool(true))
                #expect(results[1]["success"] == .bool(false) && results[1]["error"]?["code"]?.intValue == 1010)
                #expect(
                    W.json(try await transport.send(HTTPRequest(url: "\(layer)/1/attachments?f=json")))["attachmentInfos"]?.arrayValue?.isEmpty
                        == true)
                let gone = try await transport.send(HTTPRequest(url: "\(layer)/1/attachments/\(id)"))
                #expect(W.errorCode(gone) == 404)
            }
        }
    }

    @Test(
        "queryAttachments filters by objectIds, globalIds, definitionExpression, types and keywords; counts and pages agree", .timeLimit(.minutes(1)))
    func queryAttachments() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let layer = server.serviceURL + "/0"
                _ = try await Self.add(transport, layer, objectId: 1, filename: "a.jpg", contentType: "image/jpeg", bytes: W.bytes(10), keywords: "a")
                _ = try await Self.add(transport, layer, objectId: 1, filename: "b.pdf", contentType: "application/pdf", bytes: W.bytes(20))
                _ = try await Self.add(transport, layer, objectId: 2, filename: "c.png", contentType: nil, bytes: W.bytes(30), keywords: "b,c")
                func query(_ fields: [(String, String)]) async throws -> JSONValue {
                    W.json(
                        try await transport.send(
                            HTTPRequest.form(url: layer + "/queryAttachments", fields: (fields + [("f", "json")]).map { FormField($0.0, $0.1) })))
                }
                // The arcgis Python client's count request, empty placeholders included.
                let counted = try await query([
                    ("definitionExpression", "OBJECTID = 1"), ("attachmentTypes", ""), ("objectIds", ""), ("globalIds", ""),
                    ("attachmentsDefinitionExpression", ""), ("keywords", ""), ("returnCountOnly", "True"),
                ])
                #expect(counted["attachmentGroups"]?.arrayValue?.count == 1, "\(counted)")
                #expect(counted["attachmentGroups"]?[0]?["parentObjectId"]?.intValue == 1)
                #expect(counted["attachmentGroups"]?[0]?["count"]?.intValue == 2)

                let all = try await query([("objectIds", "1,2")])
                let groups = try #require(all["attachmentGroups"]?.arrayValue)
                #expect(groups.map { $0["attachmentInfos"]?.arrayValue?.count } == [2, 1])
                #expect(groups[1]["attachmentInfos"]?[0]?["contentType"] == "image/png")
                let parentGlobalId = try #require(groups[1]["parentGlobalId"]?.stringValue)
                #expect(try await query([("globalIds", parentGlobalId)])["attachmentGroups"]?.arrayValue?.count == 1)

                let images = try await query([("where", "1=1"), ("attachmentTypes", "image")])
                #expect(
                    images["attachmentGroups"]?.arrayValue?.flatMap { $0["attachmentInfos"]?.arrayValue ?? [] }.map { $0["name"] } == [
                        "a.jpg", "c.png",
                    ])
                #expect(try await query([("attachmentTypes", "application/pdf")])["attachmentGroups"]?[0]?["attachmentInfos"]?[0]?["name"] == "b.pdf")
                #expect(try await query([("keywords", "C")])["attachmentGroups"]?[0]?["attachmentInfos"]?[0]?["name"] == "c.png")
                #expect(try await query([("size", "15,25")])["attachmentGroups"]?[0]?["attachmentInfos"]?[0]?["name"] == "b.pdf")

                var names: [JSONValue?] = []
                var exceeded: [JSONValue?] = []
                for offset in 0..<3 {
                    let page = try await query([("resultOffset", "\(offset)"), ("resultRecordCount", "1")])
                    names += page["attachmentGroups"]?.arrayValue?.flatMap { $0["attachmentInfos"]?.arrayValue ?? [] }.map { $0["name"] } ?? []
                    exceeded.append(page["exceededTransferLimit"])
                }
                #expect(names == ["a.jpg", "b.pdf", "c.png"])
                #expect(exceeded == [.bool(true), .bool(true), nil])

                let injected = try await transport.send(
                    HTTPRequest.form(url: layer + "/queryAttachments", fields: [FormField("definitionExpression", "1=1; DROP TABLE layer_0")]))
                #expect(W.errorCode(injected) == 400)
                let unsupported = try await transport.send(
                    HTTPRequest.form(url: layer + "/queryAttachments", fields: [FormField("attachmentsDefinitionExpression", "ATT_NAME = 'a.jpg'")]))
                #expect(W.errorCode(unsupported) == 400)
                #expect(try await Wire.count(transport, server.serviceURL) != nil)
            }
        }
    }

    @Test("layer metadata advertises attachments only where they exist; other layers and features answer with envelopes", .timeLimit(.minutes(1)))
    func metadataAndErrors() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let parks = W.json(try await transport.send(HTTPRequest(url: server.serviceURL + "/0?f=json")))
                #expect(parks["hasAttachments"] == .bool(true))
                #expect(parks["advancedQueryCapabilities"]?["supportsQueryAttachments"] == .bool(true))
                #expect(parks["supportsApplyEditsWithGlobalIds"] == .bool(true))
                #expect(parks["attachmentProperties"]?.arrayValue?.contains { $0["name"] == "name" && $0["isEnabled"] == .bool(true) } == true)
                let species = W.json(try await transport.send(HTTPRequest(url: server.serviceURL + "/1?f=json")))
                #expect(species["hasAttachments"] == .bool(false))
                #expect(species["advancedQueryCapabilities"]?["supportsQueryAttachments"] == .bool(false))
                #expect(species["attachmentProperties"] == nil)
                let service = W.json(try await transport.send(HTTPRequest(url: server.serviceURL + "?f=json")))
                #expect(service["capabilities"]?.stringValue?.contains("Uploads") == false)

                let cases: [(HTTPRequest, Int)] = [
                    (HTTPRequest(url: server.serviceURL + "/1/1/attachments?f=json"), 400),
                    (HTTPRequest(url: server.serviceURL + "/1/queryAttachments?f=json"), 400),
                    (
                        W.multipart(
                            server.serviceURL + "/1/1/addAttachment",
                            [.file(name: "attachment", filename: "x.txt", contentType: "text/plain", bytes: [1])]), 400
                    ),
                    (HTTPRequest(url: server.serviceURL + "/0/999999/attachments?f=json"), 404),
                    (HTTPRequest(url: server.serviceURL + "/0/1/attachments/424242"), 404),
                    (HTTPRequest(url: server.serviceURL + "/7/1/attachments?f=json"), 404),
                    (
                        W.multipart(
                            server.serviceURL + "/0/999999/addAttachment",
                            [.file(name: "attachment", filename: "x.txt", contentType: "text/plain", bytes: [1])]), 404
                    ),
                    (W.multipart(server.serviceURL + "/0/1/addAttachment", [.field("f", "json")]), 400),
                    (W.multipart(server.serviceURL + "/0/1/updateAttachment", [.field("f", "json")]), 400),
                    (W.multipart(server.serviceURL + "/0/1/deleteAttachments", [.field("attachmentIds", "one")]), 400),
                ]
                for (request, code) in cases {
                    let response = try await transport.send(request)
                    #expect(response.status == 200 && response.header("Content-Type") == "application/json; charset=utf-8", "\(request.url)")
                    #expect(W.errorCode(response) == code, "\(request.url): \(Wire.text(response))")
                }
            }
        }
    }

    @Test("names, item IDs and part IDs with ../ never escape: names become plain file names, IDs are refused", .timeLimit(.minutes(1)))
    func pathTraversal() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let layer = server.serviceURL + "/0"
                let names = [
                    "../../etc/passwd": "passwd", #"..\..\boot.ini"#: "boot.ini", "../": "attachment", "..": "attachment",
                    ".hidden/../.bashrc": "bashrc",
                ]
                for (sent, stored) in names {
                    let added = try await Self.add(transport, layer, objectId: 3, filename: sent, contentType: "text/plain", bytes: Array(sent.utf8))
                    let id = try #require(added["addAttachmentResult"]?["objectId"]?.intValue, "\(added)")
                    let infos =
                        W.json(try await transport.send(HTTPRequest(url: "\(layer)/3/attachments?f=json")))["attachmentInfos"]?.arrayValue ?? []
                    #expect(infos.first { $0["id"]?.intValue == id }?["name"]?.stringValue == stored, "\(sent)")
                    let download = try await transport.send(HTTPRequest(url: "\(layer)/3/attachments/\(id)"))
                    #expect(download.body == Array(sent.utf8))
                    #expect(download.header("Content-Disposition") == "inline; filename=\"\(stored)\"")
                }
                let uploads = server.serviceURL + "/uploads"
                for itemId in ["..%2F..%2Fetc%2Fpasswd", "%2E%2E", "..%5C..%5Cx"] {
                    #expect(W.errorCode(try await transport.send(HTTPRequest(url: "\(uploads)/\(itemId)?f=json"))) == 404, "\(itemId)")
                    let part = W.multipart(
                        "\(uploads)/\(itemId)/uploadPart", [.field("partId", "1"), .file(name: "file", filename: "p", contentType: nil, bytes: [1])])
                    #expect(W.errorCode(try await transport.send(part)) == 404, "\(itemId)")
                }
                let registered = W.json(
                    try await transport.send(
                        HTTPRequest.form(url: "\(uploads)/register", fields: [FormField("itemName", "../../x.bin"), FormField("f", "json")])))
                #expect(registered["item"]?["itemName"] == "x.bin")
                let itemId = try #require(registered["item"]?["itemID"]?.stringValue)
                for partId in ["../1", "0", "-1", "1/../2", "10001"] {
                    let part = W.multipart(
                        "\(uploads)/\(itemId)/uploadPart",
                        [.field("partId", partId), .file(name: "file", filename: "p", contentType: nil, bytes: [1])])
                    #expect(W.errorCode(try await transport.send(part)) == 400, "\(partId)")
                }
                let byUpload = W.multipart("\(layer)/3/addAttachment", [.field("uploadId", "../../\(itemId)")])
                #expect(W.errorCode(try await transport.send(byUpload)) == 404)
                // Nothing but the database files next to the database.
                let directory = (server.databasePath as NSString).deletingLastPathComponent
                let files = try FileManager.default.contentsOfDirectory(atPath: directory)
                #expect(files.allSatisfy { $0.hasPrefix("parks.sqlite") }, "\(files)")
            }
        }
    }

    @Test("an attachment or upload over the size limit gets a 413 envelope and leaves nothing behind", .timeLimit(.minutes(1)))
    func sizeLimit() async throws {
        try await withConfiguredServer({ $0.limits.maximumAttachmentSize = 4096 }) { endpoint in
            try await withCurlTransport { transport in
                let layer = endpoint.serviceURL("parks") + "/0"
                let big = try await transport.send(
                    W.multipart(
                        "\(layer)/1/addAttachment",
                        [.field("f", "json"), .file(name: "attachment", filename: "big.bin", contentType: nil, bytes: W.bytes(10_000))]))
                let error = try #require(WireJSON.error(in: big.body), "\(Wire.text(big))")
                #expect(error.code == 413)
                #expect(error.details.first?.contains("4 KiB") == true, "\(error.details)")
                #expect(
                    W.json(try await transport.send(HTTPRequest(url: "\(layer)/1/attachments?f=json")))["attachmentInfos"]?.arrayValue?.isEmpty
                        == true)
                let fits = try await Self.add(transport, layer, objectId: 1, filename: "ok.bin", contentType: nil, bytes: W.bytes(4000))
                #expect(fits["addAttachmentResult"]?["success"] == .bool(true))

                let uploads = endpoint.serviceURL("parks") + "/uploads"
                let upload = try await transport.send(
                    W.multipart("\(uploads)/upload", [.file(name: "file", filename: "big.bin", contentType: nil, bytes: W.bytes(5000))]))
                #expect(W.errorCode(upload) == 413)
                let itemId = try #require(
                    W.json(try await transport.send(HTTPRequest.form(url: "\(uploads)/register", fields: [FormField("itemName", "p.bin")])))["item"]?[
                        "itemID"]?.stringValue)
                for partId in 1...2 {
                    let part = W.multipart(
                        "\(uploads)/\(itemId)/uploadPart",
                        [.field("partId", "\(partId)"), .file(name: "file", filename: "p", contentType: nil, bytes: W.bytes(3000))])
                    #expect(W.json(try await transport.send(part))["success"] == .bool(true))
                }
                let commit = try await transport.send(HTTPRequest.form(url: "\(uploads)/\(itemId)/commit", fields: [FormField("parts", "1,2")]))
                #expect(W.errorCode(commit) == 413)
                #expect(W.json(try await transport.send(HTTPRequest(url: "\(uploads)/\(itemId)?f=json")))["item"]?["committed"] == .bool(false))
            }
        }
    }

    @Test("a download needs a token like any resource: in the query string or the X-Esri-Authorization header", .timeLimit(.minutes(1)))
    func tokens() async throws {
        let clock = ManualMilliseconds()
        try await withConfiguredServer(TokenAuthHTTPTests.configure(clock)) { endpoint in
            try await withCurlTransport { transport in
                let token = try #require(Wire.object(try await TokenAuthHTTPTests.generate(transport, endpoint))["token"]?.stringValue)
                let layer = endpoint.serviceURL("parks") + "/0"
                let bytes = W.bytes(5000)
                let added = W.json(
                    try await transport.send(
                        W.multipart(
                            "\(layer)/1/addAttachment",
                            [.file(name: "attachment", filename: "t.bin", contentType: "application/octet-stream", bytes: bytes)],
                            headers: [HTTPHeader("X-Esri-Authorization", "Bearer \(token)")])))
                let id = try #require(added["addAttachmentResult"]?["objectId"]?.intValue, "\(added)")
                let byQuery = try await transport.send(HTTPRequest(url: "\(layer)/1/attachments/\(id)?token=\(token)"))
                #expect(byQuery.body == bytes)
                let byHeader = try await transport.send(
                    HTTPRequest(url: "\(layer)/1/attachments/\(id)", headers: [HTTPHeader("X-Esri-Authorization", "Bearer \(token)")]))
                #expect(byHeader.body == bytes)
                #expect(byHeader.header("Content-Type") == "application/octet-stream")
                #expect(W.errorCode(try await transport.send(HTTPRequest(url: "\(layer)/1/attachments/\(id)"))) == 499)
                #expect(W.errorCode(try await transport.send(HTTPRequest(url: "\(layer)/1/attachments/\(id)?token=nope"))) == 498)
            }
        }
    }
}
