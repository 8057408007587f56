import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import Testing

/// Server-focused tests over real HTTP: a server on 127.0.0.1 port 0 and the libcurl transport.
@Suite struct HTTPEndToEndTests {
    static func send(_ transport: CurlTransport, _ request: HTTPRequest) async throws -> (HTTPResponse, String) {
        let response = try await transport.send(request)
        return (response, String(decoding: response.body, as: UTF8.self))
    }

    static func multipart(_ url: String, _ fields: [(String, String)], boundary: String = "----featureload7MA4YWxk") -> HTTPRequest {
        var body = ""
        for (name, value) in fields { body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n" }
        body += "--\(boundary)--\r\n"
        return HTTPRequest(
            method: .post,
            url: url,
            headers: [HTTPHeader("Content-Type", "multipart/form-data; boundary=\(boundary)")],
            body: Array(body.utf8)
        )
    }

    @Test("every route answers JSON over GET and POST, with and without f", .timeLimit(.minutes(1)))
    func everyRoute() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let urls = [
                    server.rootURL, server.rootURL.replacingOccurrences(of: "/services", with: "/info"), server.serviceURL, server.serviceURL + "/0",
                    server.serviceURL + "/1", server.serviceURL + "/0/query?where=1%3D1", server.serviceURL + "/1/query?returnCountOnly=true",
                ]
                for url in urls {
                    for query in ["", "f=json", "f=pjson"] {
                        let separator = url.contains("?") ? "&" : "?"
                        let (response, body) = try await Self.send(transport, HTTPRequest(url: query.isEmpty ? url : url + separator + query))
                        #expect(response.status == 200, "\(url) \(query)")
                        #expect(response.header("Content-Type") == "application/json; charset=utf-8", "\(url)")
                        #expect(WireJSON.error(in: response.body) == nil, "\(url): \(body)")
                        #expect(body.hasPrefix("{"), "\(url)")
                    }
                    let post = HTTPRequest.form(url: url.split(separator: "?").first.map(String.init) ?? url, fields: [FormField("f", "json")])
                    let (response, body) = try await Self.send(transport, post)
                    #expect(response.status == 200 && WireJSON.error(in: response.body) == nil, "POST \(url): \(body)")
                }
                // applyEdits with nothing to do answers three empty arrays.
                let (_, empty) = try await Self.send(
                    transport,
                    HTTPRequest.form(url: server.serviceURL + "/0/applyEdits", fields: [FormField("f", "json")])
                )
                #expect(empty.contains(#""addResults":[]"#) && empty.contains(#""updateResults":[]"#) && empty.contains(#""deleteResults":[]"#))
            }
        }
    }

    @Test("errors are ArcGIS envelopes with HTTP 200, never HTML or empty bodies", .timeLimit(.minutes(1)))
    func envelopes() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let port = server.port
                let cases: [(HTTPRequest, Int)] = [
                    (HTTPRequest(url: "http://127.0.0.1:\(port)/"), 404),
                    (HTTPRequest(url: "http://127.0.0.1:\(port)/favicon.ico"), 404),
                    (HTTPRequest(url: server.rootURL + "/nope/FeatureServer?f=json"), 404),
                    (HTTPRequest(url: server.serviceURL + "/5?f=json"), 404),
                    (HTTPRequest(url: server.serviceURL + "/0/noSuchOperation?f=json"), 404),
                    (HTTPRequest(url: server.serviceURL + "/0/queryRelatedRecords?f=json"), 400),
                    (HTTPRequest(url: server.serviceURL + "/0/query?where=name%20%3D%20(SELECT%201)&f=json"), 400),
                    (HTTPRequest(url: server.serviceURL + "/0/query?outFields=nope&f=json"), 400),
                    (HTTPRequest(url: server.serviceURL + "/0/query?returnGeometry=perhaps&f=json"), 400),
                    (HTTPRequest.form(url: server.serviceURL + "/0/applyEdits", fields: [FormField("adds", "[{")]), 400),
                    (HTTPRequest.form(url: server.serviceURL + "/0/applyEdits", fields: [FormField("deletes", "one")]), 400),
                    (
                        HTTPRequest(
                            method: .post,
                            url: server.serviceURL + "/0/applyEdits",
                            headers: [HTTPHeader("Content-Type", "multipart/form-data; boundary=abc")],
                            body: Array("--abc\r\nContent-Disposition: form-data; name=\"adds\"\r\n\r\n[]".utf8)
                        ), 400
                    ),
                    (
                        HTTPRequest(
                            method: .post,
                            url: server.serviceURL + "/0/applyEdits",
                            headers: [HTTPHeader("Content-Type", "multipart/form-data")],
                            body: Array("--abc--\r\n".utf8)
                        ), 400
                    ),
                ]
                for (request, code) in cases {
                    let (response, body) = try await Self.send(transport, request)
                    #expect(response.status == 200, "\(request.url)")
                    #expect(response.header("Content-Type") == "application/json; charset=utf-8", "\(request.url)")
                    let error = WireJSON.error(in: response.body)
                    #expect(error?.code == code, "\(request.url): \(body)")
                    #expect(error?.details.isEmpty == false, "\(request.url): \(body)")
                }
            }
        }
    }

    @Test("exceededTransferLimit is true exactly when rows remain; count ignores paging", .timeLimit(.minutes(1)))
    func paging() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let query = server.serviceURL + "/1/query"
                var seen: [Int64] = []
                var offset = 0
                while true {
                    let (_, body) = try await Self.send(
                        transport,
                        HTTPRequest.form(
                            url: query,
                            fields: [
                                FormField("where", "1=1"), FormField("outFields", "OBJECTID"), FormField("resultOffset", String(offset)),
                                FormField("resultRecordCount", "7"), FormField("returnGeometry", "True"), FormField("f", "json"),
                            ]
                        )
                    )
                    let page = try WireJSON.decode(FeatureSet.self, from: body)
                    seen += page.features.compactMap { $0.attributes["OBJECTID"]?.intValue }
                    offset += page.features.count
                    #expect(page.exceededTransferLimit == (offset < 30), "offset \(offset)")
                    if page.exceededTransferLimit != true { break }
                }
                #expect(seen == Array(1...30))
                let (_, countBody) = try await Self.send(
                    transport,
                    HTTPRequest(url: query + "?where=status%3D%27VU%27&returnCountOnly=true&resultOffset=2&resultRecordCount=1&f=json")
                )
                let count = try WireJSON.decode(CountResult.self, from: countBody)
                #expect(count.count == 7)  // 7 vulnerable species
            }
        }
    }

    @Test("applyEdits as the arcgis client sends it (multipart, True/False), then a cascade delete", .timeLimit(.minutes(1)))
    func multipartEdits() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let parkGlobalId = "{6D1E4F0A-0000-4000-8000-00000000F00D}"
                let adds =
                    #"[{"attributes":{"name":"Gateway Arch","state":"MO","category":1,"GlobalID":"\#(parkGlobalId)"},"geometry":{"x":-90.185,"y":38.6247,"spatialReference":{"wkid":4326}}}]"#
                let (_, addBody) = try await Self.send(
                    transport,
                    Self.multipart(
                        server.serviceURL + "/0/applyEdits",
                        [
                            ("f", "json"), ("useGlobalIds", "True"), ("rollbackOnFailure", "True"), ("adds", adds), ("returnEditMoment", "False"),
                            ("trueCurveClient", "false"), ("usePreviousEditMoment", "false"),
                        ]
                    )
                )
                let added = try WireJSON.decode(ApplyEditsResult.self, from: addBody)
                let parkId = try #require(added.addResults.first?.objectId)
                #expect(added.addResults.first?.globalId == parkGlobalId)
                #expect(added.editMoment == nil)

                let species =
                    #"[{"attributes":{"park_guid":"\#(parkGlobalId.lowercased())","common_name":"Gray Bat","status":"EN","observed":10}},{"attributes":{"park_guid":"\#(parkGlobalId)","common_name":"Mink"}}]"#
                let (_, speciesBody) = try await Self.send(
                    transport,
                    Self.multipart(server.serviceURL + "/1/applyEdits", [("f", "json"), ("adds", species), ("returnEditMoment", "true")])
                )
                let speciesResult = try WireJSON.decode(ApplyEditsResult.self, from: speciesBody)
                #expect(speciesResult.addResults.count == 2 && speciesResult.failures.isEmpty, "\(speciesBody)")
                #expect(speciesResult.editMoment != nil)

                let related =
                    server.serviceURL + "/1/query?where=" + FormEncoding.escape("park_guid = '\(parkGlobalId)'") + "&returnCountOnly=true&f=json"
                let before = try WireJSON.decode(CountResult.self, from: try await Self.send(transport, HTTPRequest(url: related)).1)
                #expect(before.count == 2)
                let (_, deleteBody) = try await Self.send(
                    transport,
                    Self.multipart(server.serviceURL + "/0/applyEdits", [("f", "json"), ("deletes", String(parkId))])
                )
                #expect(try WireJSON.decode(ApplyEditsResult.self, from: deleteBody).deleteResults.first?.success == true)
                let after = try WireJSON.decode(CountResult.self, from: try await Self.send(transport, HTTPRequest(url: related)).1)
                #expect(after.count == 0)
            }
        }
    }

    @Test("a failed edit with rollbackOnFailure=true answers the documented envelope and writes nothing", .timeLimit(.minutes(1)))
    func rollbackEnvelope() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let adds = #"[{"attributes":{"name":"Fine"}},{"attributes":{"name":"Bad","category":5}}]"#
                let (response, body) = try await Self.send(
                    transport,
                    HTTPRequest.form(url: server.serviceURL + "/0/applyEdits", fields: [FormField("f", "json"), FormField("adds", adds)])
                )
                #expect(response.status == 200)
                let error = try #require(WireJSON.error(in: response.body), "\(body)")
                #expect(error.code == 400)
                #expect(error.extendedCode == -2_147_207_418)
                #expect(error.message == "Unable to complete operation.")
                #expect(error.details.count == 2)
                #expect(error.details.last == "Operation rolled back.")
                let (_, countBody) = try await Self.send(transport, HTTPRequest(url: server.serviceURL + "/0/query?returnCountOnly=true&f=json"))
                let count = try WireJSON.decode(CountResult.self, from: countBody)
                #expect(count.count == 12)
            }
        }
    }

    @Test("a database file outlives its server: restarting on it keeps the rows", .timeLimit(.minutes(1)))
    func restart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("featureload-restart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("parks.sqlite").path
        let added = try await withTestServer(databasePath: path) { server in
            try await withCurlTransport { transport in
                let (_, body) = try await Self.send(
                    transport,
                    HTTPRequest.form(url: server.serviceURL + "/0/applyEdits", fields: [FormField("adds", #"[{"attributes":{"name":"Persisted"}}]"#)])
                )
                return try #require(try WireJSON.decode(ApplyEditsResult.self, from: body).addResults.first?.objectId)
            }
        }
        #expect(FileManager.default.fileExists(atPath: path))
        try await withTestServer(databasePath: path) { server in
            try await withCurlTransport { transport in
                let (_, body) = try await Self.send(
                    transport,
                    HTTPRequest(url: server.serviceURL + "/0/query?where=name%3D%27Persisted%27&returnIdsOnly=true&f=json")
                )
                let ids = try WireJSON.decode(ObjectIdsResult.self, from: body)
                #expect(ids.objectIds == [added])
            }
        }
    }
}
