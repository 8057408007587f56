import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Testing

@testable import LocalFeatureServer

/// The minimal portal and the service-level query with `layerDefs`, over real HTTP (libcurl, port 0).
@Suite struct PortalAndServiceQueryTests {
    static func get(_ transport: CurlTransport, _ url: String, _ fields: [(String, String)] = [("f", "json")]) async throws -> JSONValue {
        let query = fields.map { "\(FormEncoding.escape($0.0))=\(FormEncoding.escape($0.1))" }.joined(separator: "&")
        let response = try await transport.send(HTTPRequest(url: url + "?" + query))
        #expect(response.status == 200)
        #expect(response.header("Content-Type")?.contains("json") == true)
        return try JSONReader.parse(bytes: response.body)
    }

    static func site(_ server: TestServer) -> String {
        String(server.rootURL.dropLast("/rest/services".count))
    }

    @Test("the portal answers what the ArcGIS API for Python reads when it connects", .timeLimit(.minutes(1)))
    func portal() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let site = Self.site(server)
                let portal = try await Self.get(transport, site + "/sharing/rest/portals/self")
                guard case .object(let members) = portal else {
                    Issue.record("portals/self is not an object")
                    return
                }
                #expect(members["portalName"] == .string("featureload"))
                #expect(members["portalMode"] == .string("singletenant"))
                #expect(members["allSSL"] == .bool(false))
                #expect(members["currentVersion"] == .string("2023.1"))
                for path in ["/sharing/rest", "/sharing/rest/", "/sharing"] {
                    #expect(try await Self.get(transport, site + path) == .object(["currentVersion": .string("2023.1")]), "\(path)")
                }
                #expect(
                    try await Self.get(transport, site + "/sharing/rest/info")
                        == .object(["authInfo": .object(["isTokenBasedSecurity": .bool(false)])])
                )
                // The other sniffed URLs answer JSON too.
                guard case .object(let info) = try await Self.get(transport, site + "/info") else {
                    Issue.record("/arcgis/info")
                    return
                }
                #expect(info["currentVersion"] == .double(11.1))
                guard case .object(let catalog) = try await Self.get(transport, site + "/rest/services") else {
                    Issue.record("catalog")
                    return
                }
                #expect(catalog["services"] != nil)
            }
        }
    }

    @Test("portal paths are routed with or without /arcgis, in any case; others are not portal routes")
    func portalRoutes() {
        #expect(FeatureServerRoute(path: "/arcgis/sharing/rest/portals/self") == .portal(.portalSelf))
        #expect(FeatureServerRoute(path: "/sharing/rest/portals/self") == .portal(.portalSelf))
        #expect(FeatureServerRoute(path: "/ArcGIS/Sharing/REST/accounts/self/") == .portal(.portalSelf))
        #expect(FeatureServerRoute(path: "/arcgis/sharing/rest/info") == .portal(.info))
        #expect(FeatureServerRoute(path: "/arcgis/sharing/rest") == .portal(.root))
        #expect(FeatureServerRoute(path: "/arcgis/sharing/rest/portals/other") == nil)
        #expect(FeatureServerRoute(path: "/arcgis/rest/services/parks/FeatureServer/query") == .serviceQuery("parks"))
    }

    @Test("layerDefs parses the JSON object, the JSON array and the simple syntax")
    func layerDefinitionForms() throws {
        typealias Definition = LayerDefinitions.Definition
        #expect(
            try LayerDefinitions.parse(#"{"1":"name LIKE 'B%'","0":"state = 'UT'"}"#).definitions == [
                Definition(layerId: 0, whereClause: "state = 'UT'", outFields: nil),
                Definition(layerId: 1, whereClause: "name LIKE 'B%'", outFields: nil),
            ]
        )
        #expect(
            try LayerDefinitions.parse(#"[{"layerId":1,"where":"1=1","outfields":"name"},{"layerId":"0","outFields":"*"}]"#).definitions == [
                Definition(layerId: 1, whereClause: "1=1", outFields: "name"), Definition(layerId: 0, whereClause: nil, outFields: "*"),
            ]
        )
        #expect(
            try LayerDefinitions.parse("0:established < timestamp '1950-01-01 00:00:00'; 1:1=1").definitions == [
                Definition(layerId: 0, whereClause: "established < timestamp '1950-01-01 00:00:00'", outFields: nil),
                Definition(layerId: 1, whereClause: "1=1", outFields: nil),
            ]
        )
        for bad in ["{", "[1]", #"{"x":"1=1"}"#, #"{"0":5}"#, "0 1=1", "-1:1=1", #"[{"where":"1=1"}]"#, #"{"0":"1=1","00":"1=1"}"#, "7"] {
            #expect(throws: ServiceError.self, "\(bad)") { try LayerDefinitions.parse(bad) }
        }
    }

    @Test("service-level query answers each layer of layerDefs with features, counts or ids", .timeLimit(.minutes(1)))
    func serviceQuery() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let url = server.serviceURL + "/query"
                let definitions = #"{"0":"state = 'UT'","1":"1=1"}"#
                let counts = try await Self.get(transport, url, [("layerDefs", definitions), ("returnCountOnly", "true"), ("f", "json")])
                let utahCount = try await Self.get(
                    transport,
                    server.serviceURL + "/0/query",
                    [("where", "state = 'UT'"), ("returnCountOnly", "true"), ("f", "json")]
                )
                guard case .object(let utah) = utahCount, case .int(let expected)? = utah["count"] else {
                    Issue.record("layer count")
                    return
                }
                #expect(expected > 0)
                #expect(
                    counts == .object(["layers": .array([.object(["id": 0, "count": .int(expected)]), .object(["id": 1, "count": 30])])])
                )

                let ids = try await Self.get(
                    transport,
                    url,
                    [("layerDefs", #"[{"layerId":1,"where":"OBJECTID <= 3"}]"#), ("returnIdsOnly", "true"), ("f", "json")]
                )
                #expect(
                    ids == .object(["layers": .array([.object(["id": 1, "objectIdFieldName": "OBJECTID", "objectIds": [1, 2, 3]])])])
                )

                let features = try await Self.get(
                    transport,
                    url,
                    [("layerDefs", #"[{"layerId":0,"where":"state = 'UT'","outFields":"name,state"}]"#), ("f", "json")]
                )
                guard case .object(let top) = features, case .array(let layers)? = top["layers"], layers.count == 1,
                    case .object(let layer) = layers[0], case .array(let rows)? = layer["features"]
                else {
                    Issue.record("unexpected answer \(features)")
                    return
                }
                #expect(layer["id"] == 0)
                #expect(layer["geometryType"] == .string("esriGeometryPoint"))
                #expect(Int64(rows.count) == expected)
                for row in rows {
                    guard case .object(let feature) = row, case .object(let attributes)? = feature["attributes"] else { continue }
                    #expect(Set(attributes.keys) == ["name", "state"])
                    #expect(attributes["state"] == .string("UT"))
                    #expect(feature["geometry"] != nil)
                }

                // Without layerDefs: every layer and table, outFields * by default.
                let everything = try await Self.get(transport, url, [("returnCountOnly", "true"), ("f", "json")])
                #expect(everything == .object(["layers": .array([.object(["id": 0, "count": 12]), .object(["id": 1, "count": 30])])]))
            }
        }
    }

    @Test("service-level query errors are ArcGIS envelopes naming the problem", .timeLimit(.minutes(1)))
    func serviceQueryErrors() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let url = server.serviceURL + "/query"
                for (definitions, detail) in [
                    (#"{"9":"1=1"}"#, "layerDefs"), ("{oops", "layerDefs"), (#"{"0":"1=1; DROP TABLE layer_0"}"#, "'where' parameter is invalid"),
                ] {
                    let answer = try await Self.get(transport, url, [("layerDefs", definitions), ("f", "json")])
                    guard case .object(let top) = answer, case .object(let error)? = top["error"], case .array(let details)? = error["details"]
                    else {
                        Issue.record("no error envelope for \(definitions): \(answer)")
                        continue
                    }
                    #expect(error["code"] == 400)
                    #expect(details.contains { $0.stringValue?.contains(detail) == true }, "\(definitions): \(details)")
                }
                let count = try await Self.get(transport, server.serviceURL + "/0/query", [("returnCountOnly", "true"), ("f", "json")])
                #expect(count == .object(["count": 12]))
            }
        }
    }
}
