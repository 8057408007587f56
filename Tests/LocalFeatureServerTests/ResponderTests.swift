import FeatureModel
import Logging
import NIOCore
import Testing

@testable import LocalFeatureServer

/// Router-level tests: the responder answers requests without a socket.
@Suite struct ResponderTests {
    static func withResponder<T: Sendable>(maxRecordCount: Int = 2000, _ body: @Sendable (FeatureServerResponder) async throws -> T) async throws -> T
    {
        try await withStore { store in
            try await body(
                FeatureServerResponder(stores: [store], limits: RecordLimits(maxRecordCount: maxRecordCount), logger: Logger(label: "test")))
        }
    }

    static func get(_ responder: FeatureServerResponder, _ path: String, _ query: String? = "f=json") async -> (Int, String) {
        let response = await responder.respond(to: ServerRequest(path: path, query: query))
        return (response.status, String(buffer: response.body))
    }

    static let service = "/arcgis/rest/services/parks/FeatureServer"

    @Test("the catalog, info, service and layer documents answer", .timeLimit(.minutes(1)))
    func metadata() async throws {
        try await Self.withResponder(maxRecordCount: 1500) { responder in
            let (status, catalog) = await Self.get(responder, "/arcgis/rest/services")
            #expect(status == 200)
            let decodedCatalog = try WireJSON.decode(ServiceCatalog.self, from: catalog)
            #expect(decodedCatalog.services == [ServiceCatalog.Service(name: "parks", type: "FeatureServer")])
            #expect(decodedCatalog.folders.isEmpty)
            #expect(catalog.contains(#""folders":[]"#))

            let info = try WireJSON.decode(RestInfo.self, from: await Self.get(responder, "/arcgis/rest/info").1)
            #expect(info.currentVersion != nil)
            #expect(try WireJSON.decode(RestInfo.self, from: await Self.get(responder, "/arcgis/info", nil).1).currentVersion != nil)

            let service = try WireJSON.decode(ServiceInfo.self, from: await Self.get(responder, Self.service).1)
            #expect(service.layers.map(\.id) == [0])
            #expect(service.tables.map(\.id) == [1])
            #expect(service.maxRecordCount == 1500)
            #expect(service.fullExtent != nil)

            let (_, layerText) = await Self.get(responder, Self.service + "/0")
            let layer = try WireJSON.decode(LayerInfo.self, from: layerText)
            #expect(layer.objectIdField == "OBJECTID")
            #expect(layer.globalIdField == "GlobalID")
            #expect(layer.geometryType == .point)
            #expect(layer.spatialReference?.wkid == 4326)
            #expect(layer.extent != nil)
            #expect(layer.maxRecordCount == 1500)
            #expect(layer.hasAttachments == true)
            #expect(layer.capabilities?.lowercased().split(separator: ",").contains("editing") == true)
            #expect(layer.advancedQueryCapabilities?.supportsPagination == true)
            #expect(layer.supportsRollbackOnFailureParameter == true)
            #expect(layer.supportsApplyEditsWithGlobalIds == true)
            #expect(layer.useStandardizedQueries == true)
            #expect(layer.field(named: "category")?.domain == ParksDataset.parkCategory)
            #expect(layer.field(named: "name")?.isNullable == false)
            #expect(layer.relationships?.first?.composite == true)
            #expect(layer.relationships?.first?.cardinality == .oneToMany)
            #expect(layer.relationships?.first?.role == .origin)
            #expect(layer.relationships?.first?.keyField == "GlobalID")

            let table = try WireJSON.decode(LayerInfo.self, from: await Self.get(responder, Self.service + "/1", nil).1)
            #expect(table.isTable)
            #expect(table.geometryType == nil)
            #expect(table.relationships?.first?.role == .destination)
            #expect(table.relationships?.first?.keyField == "park_guid")
        }
    }

    @Test("paths match case-insensitively and tolerate a trailing slash", .timeLimit(.minutes(1)))
    func pathCase() async throws {
        try await Self.withResponder { responder in
            let (_, body) = await Self.get(
                responder,
                "/ArcGIS/rest/services/Parks/featureserver/0/QUERY/",
                "where=1%3D1&returnCountOnly=true&f=pjson"
            )
            let count = try WireJSON.decode(CountResult.self, from: body)
            #expect(count.count == 12)
            #expect(body.contains("\n"))  // pjson is indented
        }
    }

    static let notFound = [
        "/", "/arcgis", "/arcgis/rest/services/nope/FeatureServer", "/arcgis/rest/services/parks/FeatureServer/7",
        "/arcgis/rest/services/parks/FeatureServer/7/query", "/arcgis/rest/services/parks/FeatureServer/0/bogus",
        "/arcgis/rest/services/parks/MapServer", "/arcgis/rest/services/parks/FeatureServer/x",
        "/arcgis/rest/services/parks/FeatureServer/9/applyEdits",
    ]

    @Test("unknown services, layers and operations are 404 envelopes with HTTP 200", .timeLimit(.minutes(1)), arguments: notFound)
    func unknown(_ path: String) async throws {
        try await Self.withResponder { responder in
            let (status, body) = await Self.get(responder, path)
            #expect(status == 200)
            let error = try #require(WireJSON.error(in: Array(body.utf8)))
            #expect(error.code == 404)
            #expect(!error.details.isEmpty)
        }
    }

    @Test("query answers features, counts and ids in the wire shapes", .timeLimit(.minutes(1)))
    func query() async throws {
        try await Self.withResponder { responder in
            let (_, body) = await Self.get(
                responder,
                Self.service + "/0/query",
                "where=state%3D%27CA%27&outFields=*&orderByFields=name&resultRecordCount=1&f=json"
            )
            let set = try WireJSON.decode(FeatureSet.self, from: body)
            #expect(set.objectIdFieldName == "OBJECTID")
            #expect(set.globalIdFieldName == "GlobalID")
            #expect(set.geometryType == .point)
            #expect(set.spatialReference?.wkid == 4326)
            #expect(set.fields?.count == 8)
            #expect(set.features.first?.attributes["name"] == "Muir Woods")
            #expect(set.exceededTransferLimit == true)

            let ids = try WireJSON.decode(ObjectIdsResult.self, from: await Self.get(responder, Self.service + "/1/query", "returnIdsOnly=true").1)
            #expect(ids.objectIds.count == 30)
            #expect(ids.objectIdFieldName == "OBJECTID")

            let (_, table) = await Self.get(responder, Self.service + "/1/query", "where=1%3D1&outFields=common_name&resultRecordCount=2")
            let tableSet = try WireJSON.decode(FeatureSet.self, from: table)
            #expect(tableSet.geometryType == nil)
            #expect(tableSet.features.allSatisfy { $0.geometry == nil })
            #expect(!table.contains("spatialReference"))
        }
    }

    @Test("a rejected where clause answers exactly ArcGIS' envelope", .timeLimit(.minutes(1)))
    func badWhere() async throws {
        try await Self.withResponder { responder in
            let (status, body) = await Self.get(responder, Self.service + "/0/query", "where=1%3D1%3B%20DROP%20TABLE%20layer_0&f=json")
            #expect(status == 200)
            #expect(body == #"{"error":{"code":400,"message":"Unable to complete operation.","details":["'where' parameter is invalid"]}}"#)
        }
    }

    static func multipart(_ fields: [(String, String)], boundary: String = "XyZzY") -> ByteBuffer {
        var text = ""
        for (name, value) in fields { text += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n" }
        return ByteBuffer(string: text + "--\(boundary)--\r\n")
    }

    @Test("applyEdits over multipart applies edits; malformed input answers 400 envelopes", .timeLimit(.minutes(1)))
    func applyEdits() async throws {
        try await Self.withResponder { responder in
            let adds =
                #"[{"attributes":{"name":"Gateway Arch","state":"MO","category":2},"geometry":{"x":-90.185,"y":38.6247,"spatialReference":{"wkid":4326}}}]"#
            let request = ServerRequest(
                method: "POST",
                path: Self.service + "/0/applyEdits",
                contentType: "multipart/form-data; boundary=XyZzY",
                body: Self.multipart([
                    ("f", "json"), ("adds", adds), ("updates", "[]"), ("deletes", "12"), ("rollbackOnFailure", "True"), ("gdbVersion", ""),
                ])
            )
            let response = await responder.respond(to: request)
            let result = try WireJSON.decode(ApplyEditsResult.self, from: Array(response.body.readableBytesView))
            #expect(result.addResults.first?.objectId == 13)
            #expect(result.deleteResults.first?.objectId == 12)
            #expect(result.updateResults.isEmpty)
            #expect(String(buffer: response.body).contains(#""updateResults":[]"#))

            let malformed = ServerRequest(
                method: "POST",
                path: Self.service + "/0/applyEdits",
                contentType: "multipart/form-data; boundary=XyZzY",
                body: ByteBuffer(string: "--XyZzY\r\nContent-Disposition: form-data; name=\"adds\"\r\n\r\n[]")
            )
            let malformedError = try #require(WireJSON.error(in: Array(await responder.respond(to: malformed).body.readableBytesView)))
            #expect(malformedError.code == 400)

            let badJSON = ServerRequest(
                method: "POST",
                path: Self.service + "/0/applyEdits",
                contentType: "application/x-www-form-urlencoded",
                body: ByteBuffer(string: "f=json&adds=" + FormEncoding.escape(#"[{"attributes":{"name":"x"}"#))
            )
            let badJSONError = try #require(WireJSON.error(in: Array(await responder.respond(to: badJSON).body.readableBytesView)))
            #expect(badJSONError.code == 400)
            #expect(badJSONError.details.first == "'adds' parameter is invalid")

            let rolledBack = ServerRequest(
                method: "POST",
                path: Self.service + "/0/applyEdits",
                contentType: "application/x-www-form-urlencoded",
                body: ByteBuffer(string: "f=json&adds=" + FormEncoding.escape(#"[{"attributes":{"name":null}}]"#))
            )
            let rolledBackText = String(buffer: await responder.respond(to: rolledBack).body)
            #expect(
                rolledBackText.hasPrefix(#"{"error":{"code":400,"extendedCode":-2147207418,"message":"Unable to complete operation.","details":["#)
            )
            #expect(rolledBackText.hasSuffix(#""Operation rolled back."]}}"#))
        }
    }
}
