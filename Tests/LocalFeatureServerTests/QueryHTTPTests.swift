import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import Testing

/// The query surface over real HTTP, as real clients use it: a server on 127.0.0.1 port 0 and the libcurl transport.
@Suite struct QueryHTTPTests {
    static func get(_ transport: CurlTransport, _ url: String, _ fields: [(String, String)]) async throws -> (HTTPResponse, String) {
        let query = fields.map { "\(FormEncoding.escape($0.0))=\(FormEncoding.escape($0.1))" }.joined(separator: "&")
        let response = try await transport.send(HTTPRequest(url: url + "?" + query))
        return (response, String(decoding: response.body, as: UTF8.self))
    }

    static func post(_ transport: CurlTransport, _ url: String, _ fields: [(String, String)]) async throws -> (HTTPResponse, String) {
        let response = try await transport.send(HTTPRequest.form(url: url, fields: fields.map { FormField($0.0, $0.1) }))
        return (response, String(decoding: response.body, as: UTF8.self))
    }

    static let injections: [String] = [
        "1=1; DROP TABLE layer_0", "1=1; DELETE FROM layer_0", "name = (SELECT name FROM layer_0 LIMIT 1)",
        "OBJECTID IN (SELECT OBJECTID FROM layer_1)", "EXISTS (SELECT 1 FROM sqlite_master)", "1=1 UNION SELECT sql FROM sqlite_master",
        "load_extension('/tmp/x') = 1", "sqlite_version() <> ''", "writefile('/tmp/x', 'y') = 1", "1=1 -- ", "1=1 /* */",
        "name = 'x' OR '1'='1", "name = 'x' OR 'a'='a' --'", "name = 'unbalanced", "name = 'x'' OR 1=1 --", "1=1; PRAGMA journal_mode=DELETE",
        "1=1; ATTACH DATABASE '/tmp/evil.sqlite' AS evil", "name = 'a' || (SELECT 'b')", "name || 'x' = 'Zionx'", "\"name\" = 'Zion'",
        "1=1\u{0}; DROP TABLE layer_0",
    ]

    @Test("where-clause injection attempts are rejected with the fixed 400 and the data stays intact", .timeLimit(.minutes(1)))
    func injections() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let query = server.serviceURL + "/0/query"
                for clause in Self.injections {
                    for send in [Self.get, Self.post] {
                        let (response, body) = try await send(transport, query, [("where", clause), ("f", "json")])
                        #expect(response.status == 200, "\(clause)")
                        #expect(
                            body == #"{"error":{"code":400,"message":"Unable to complete operation.","details":["'where' parameter is invalid"]}}"#,
                            "\(clause)")
                    }
                }
                let (_, parks) = try await Self.get(transport, query, [("where", "1=1"), ("returnCountOnly", "true"), ("f", "json")])
                #expect(try WireJSON.decode(CountResult.self, from: parks).count == 12)
                let (_, species) = try await Self.get(transport, server.serviceURL + "/1/query", [("returnCountOnly", "true"), ("f", "json")])
                #expect(try WireJSON.decode(CountResult.self, from: species).count == 30)
                let (_, zion) = try await Self.get(transport, query, [("where", "name = 'Zion'"), ("outFields", "*"), ("f", "json")])
                #expect(try WireJSON.decode(FeatureSet.self, from: zion).features.first?.attributes["state"] == "UT")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: "/tmp/evil.sqlite"))
    }

    @Test("a 60,000-term OR chain is the where envelope and the server keeps answering", .timeLimit(.minutes(1)))
    func longChain() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let query = server.serviceURL + "/0/query"
                let clause = Array(repeating: "OBJECTID=1", count: 60_000).joined(separator: " OR ")
                let (_, body) = try await Self.post(transport, query, [("where", clause), ("returnCountOnly", "true"), ("f", "json")])
                #expect(body.contains(#""code":400"#) && body.contains("'where' parameter is invalid"))
                let (_, count) = try await Self.get(transport, query, [("returnCountOnly", "true"), ("f", "json")])
                #expect(try WireJSON.decode(CountResult.self, from: count).count == 12)
            }
        }
    }

    @Test("esridump's statistics probe: min/max OBJECTID, empty outFields, no where", .timeLimit(.minutes(1)))
    func esridumpStatistics() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let statistics =
                    #"[{"statisticType":"min","onStatisticField":"OBJECTID","outStatisticFieldName":"THE_MIN"},{"statisticType":"max","onStatisticField":"OBJECTID","outStatisticFieldName":"THE_MAX"}]"#
                let (response, body) = try await Self.get(
                    transport, server.serviceURL + "/0/query", [("outFields", ""), ("outStatistics", statistics), ("f", "json")]
                )
                #expect(response.header("Content-Type") == "application/json; charset=utf-8")
                let set = try WireJSON.decode(FeatureSet.self, from: body)
                #expect(set.features.count == 1)
                #expect(Set(set.features.first?.attributes.values.compactMap(\.intValue) ?? []) == [1, 12], "\(body)")
                #expect(set.fields?.map(\.name) == ["THE_MIN", "THE_MAX"])
                #expect(set.geometryType == nil && !body.contains("geometryType"))
                // The next probe esridump makes: both ids present.
                let (_, ids) = try await Self.get(
                    transport, server.serviceURL + "/0/query", [("where", "OBJECTID = 1 OR OBJECTID = 12"), ("returnIdsOnly", "true"), ("f", "json")]
                )
                #expect(try WireJSON.decode(ObjectIdsResult.self, from: ids).objectIds == [1, 12])
            }
        }
    }

    @Test("arcgis' count call keeps paging and order parameters; count ignores them", .timeLimit(.minutes(1)))
    func arcgisCount() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let (_, body) = try await Self.get(
                    transport, server.serviceURL + "/0/query",
                    [
                        ("where", "1=1"), ("outFields", "OBJECTID"), ("returnGeometry", "true"), ("returnCountOnly", "true"),
                        ("returnIdsOnly", "false"), ("returnDistinctValues", "false"), ("returnExtentOnly", "false"), ("returnZ", "false"),
                        ("returnM", "false"), ("returnCentroid", "false"), ("returnAllRecords", "false"), ("returnTrueCurves", "false"),
                        ("resultOffset", "1"), ("resultRecordCount", "1"), ("orderByFields", "OBJECTID ASC"), ("f", "json"),
                    ]
                )
                #expect(try WireJSON.decode(CountResult.self, from: body).count == 12, "\(body)")
            }
        }
    }

    @Test("orderByFields with paging returns every row once, in order", .timeLimit(.minutes(1)))
    func orderedPaging() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                var seen: [(String, String)] = []
                var offset = 0
                for _ in 0..<10 {
                    let (_, body) = try await Self.post(
                        transport, server.serviceURL + "/0/query",
                        [
                            ("where", "1=1"), ("outFields", "state,name"), ("orderByFields", "state DESC, name ASC"),
                            ("resultOffset", String(offset)),
                            ("resultRecordCount", "5"), ("returnGeometry", "false"), ("f", "json"),
                        ]
                    )
                    let page = try WireJSON.decode(FeatureSet.self, from: body)
                    seen += page.features.map { ($0.attributes["state"]?.stringValue ?? "", $0.attributes["name"]?.stringValue ?? "") }
                    offset += page.features.count
                    if page.exceededTransferLimit != true { break }
                }
                #expect(seen.count == 12)
                #expect(Set(seen.map(\.1)).count == 12)
                let expected = seen.sorted { $0.0 != $1.0 ? $0.0 > $1.0 : $0.1 < $1.1 }
                #expect(seen.map(\.1) == expected.map(\.1))
            }
        }
    }

    @Test("an envelope filter with outSR and geometryPrecision, as esridump's envelope fallback sends it", .timeLimit(.minutes(1)))
    func envelope() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let geometry = #"{"xmin":-125,"ymin":30,"xmax":-100,"ymax":45,"spatialReference":{"wkid":4326}}"#
                let fields = [
                    ("geometry", geometry), ("geometryType", "esriGeometryEnvelope"), ("spatialRel", "esriSpatialRelIntersects"),
                    ("outSR", "4326"), ("geometryPrecision", "7"), ("outFields", "*"), ("returnGeometry", "True"), ("f", "json"),
                ]
                let (_, body) = try await Self.post(transport, server.serviceURL + "/0/query", fields)
                let set = try WireJSON.decode(FeatureSet.self, from: body)
                #expect(set.features.compactMap { $0.attributes["OBJECTID"]?.intValue }.sorted() == [1, 2, 3, 4, 7, 10, 11])
                #expect(set.spatialReference?.wkid == 4326)
                let (_, count) = try await Self.post(transport, server.serviceURL + "/0/query", fields + [("returnCountOnly", "true")])
                #expect(try WireJSON.decode(CountResult.self, from: count).count == 7)

                let (_, mercator) = try await Self.get(
                    transport, server.serviceURL + "/0/query", [("objectIds", "1"), ("outSR", "102100"), ("geometryPrecision", "3"), ("f", "json")]
                )
                let projected = try WireJSON.decode(FeatureSet.self, from: mercator)
                #expect(projected.spatialReference == .webMercator)
                #expect(projected.features.first?.geometry == .point(x: -12_310_655.508, y: 5_531_916.842))

                let (response, polygon) = try await Self.get(
                    transport, server.serviceURL + "/0/query",
                    [
                        ("geometry", #"{"rings":[[[-125,30],[-100,30],[-100,45],[-125,30]]]}"#), ("geometryType", "esriGeometryEnvelope"),
                        ("f", "json"),
                    ]
                )
                let error = try #require(WireJSON.error(in: response.body), "\(polygon)")
                #expect(error.code == 400)
                #expect(error.details.first == "'geometryType' parameter is invalid")
            }
        }
    }

    @Test("statistics, distinct values and extents answer in ArcGIS' shapes", .timeLimit(.minutes(1)))
    func shapes() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let query = server.serviceURL + "/0/query"
                let (_, grouped) = try await Self.get(
                    transport, query,
                    [
                        (
                            "outStatistics",
                            #"[{"statisticType":"count","onStatisticField":"OBJECTID","outStatisticFieldName":"parks"},{"statisticType":"avg","onStatisticField":"visitors","outStatisticFieldName":"mean"}]"#
                        ),
                        ("groupByFieldsForStatistics", "category"), ("orderByFields", "parks DESC"), ("f", "json"),
                    ]
                )
                let statistics = try WireJSON.decode(FeatureSet.self, from: grouped)
                #expect(statistics.fields?.map(\.name) == ["category", "parks", "mean"])
                #expect(statistics.fields?.map(\.type) == [.smallInteger, .integer, .double])
                #expect(statistics.features.map { $0.attributes["parks"]?.intValue } == [9, 2, 1])

                let (_, distinct) = try await Self.get(
                    transport, query, [("returnDistinctValues", "true"), ("outFields", "category"), ("returnGeometry", "false"), ("f", "json")]
                )
                let values = try WireJSON.decode(FeatureSet.self, from: distinct)
                #expect(values.features.map { $0.attributes } == [["category": 1], ["category": 2], ["category": 3]])

                let (_, extent) = try await Self.get(
                    transport, query, [("where", "OBJECTID = 6"), ("returnExtentOnly", "true"), ("returnCountOnly", "true"), ("f", "json")])
                #expect(
                    extent
                        == #"{"count":1,"extent":{"spatialReference":{"latestWkid":4326,"wkid":4326},"xmax":-68.2733,"xmin":-68.2733,"ymax":44.3386,"ymin":44.3386}}"#
                )
                let (_, empty) = try await Self.get(transport, query, [("where", "1=0"), ("returnExtentOnly", "true"), ("f", "json")])
                #expect(
                    empty == #"{"extent":{"spatialReference":{"latestWkid":4326,"wkid":4326},"xmax":"NaN","xmin":"NaN","ymax":"NaN","ymin":"NaN"}}"#)
            }
        }
    }

    @Test("layer metadata advertises statistics, distinct values and query extents, which work", .timeLimit(.minutes(1)))
    func metadata() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let (_, body) = try await Self.get(transport, server.serviceURL + "/0", [("f", "json")])
                let info = try WireJSON.decode(LayerInfo.self, from: body)
                #expect(info.supportsStatistics == true)
                #expect(info.useStandardizedQueries == true)
                #expect(info.advancedQueryCapabilities?.supportsStatistics == true)
                #expect(info.advancedQueryCapabilities?.supportsDistinct == true)
                #expect(info.advancedQueryCapabilities?.supportsReturningQueryExtent == true)
            }
        }
    }
}
