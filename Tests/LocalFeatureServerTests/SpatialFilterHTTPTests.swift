import FeatureModel
import FeatureServiceClient
import Foundation
import GRDB
import Testing

@testable import LocalFeatureServer

/// Spatial filters on every geometry type, over libcurl against a real server on port 0, each answer computed by
/// hand from shapes laid out for it: a square with a hole, a polygon of two parts, a triangle; a diagonal line and a
/// line of two paths; multipoints; points in the hole, inside and on an edge.
@Suite struct SpatialFilterHTTPTests {
    /// The layers: 0 polygons, 1 polylines, 2 multipoints, 3 points.
    static let dataset = """
        {"name": "shapes", "layers": [
          \(layer(0, "esriGeometryPolygon", [
            ("square", #"{"rings":[[[0,0],[0,10],[10,10],[10,0],[0,0]],[[4,4],[6,4],[6,6],[4,6],[4,4]]]}"#),
            ("pair", #"{"rings":[[[20,0],[20,2],[22,2],[22,0],[20,0]],[[24,0],[24,2],[26,2],[26,0],[24,0]]]}"#),
            ("triangle", #"{"rings":[[[30,0],[30,10],[40,0],[30,0]]]}"#),
          ])),
          \(layer(1, "esriGeometryPolyline", [
            ("diagonal", #"{"paths":[[[0,20],[10,30]]]}"#), ("twin", #"{"paths":[[[20,20],[20,30]],[[25,20],[25,30]]]}"#),
          ])),
          \(layer(2, "esriGeometryMultipoint", [("spread", #"{"points":[[1,1],[50,50]]}"#), ("single", #"{"points":[[5,5]]}"#)])),
          \(layer(3, "esriGeometryPoint", [("hole", #"{"x":5,"y":5}"#), ("corner", #"{"x":1,"y":1}"#), ("edge", #"{"x":10,"y":5}"#)]))
        ]}
        """

    static func layer(_ id: Int, _ type: String, _ rows: [(String, String)]) -> String {
        let seeds = rows.map { #"{"attributes": {"name": "\#($0.0)"}, "geometry": \#($0.1)}"# }.joined(separator: ", ")
        return """
            {"id": \(id), "name": "L\(id)", "type": "Feature Layer", "geometryType": "\(type)", "objectIdField": "OBJECTID",
             "fields": [{"name": "OBJECTID", "type": "esriFieldTypeOID"}, {"name": "name", "type": "esriFieldTypeString", "length": 32}],
             "seedRows": [\(seeds)]}
            """
    }

    /// Runs `body` against a server hosting ``dataset``.
    static func withShapes(_ body: @Sendable (DatasetClient) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("featureload-shapes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("shapes.json").path
        try dataset.write(toFile: path, atomically: true, encoding: .utf8)
        try await withDatasetServer([path], body)
    }

    /// One query's case: the layer, the filter's fields and the names it selects.
    struct Case: Sendable, CustomStringConvertible {
        var layer: Int
        var fields: [(String, String)]
        var names: [String]
        var description: String { "layer \(layer) " + fields.map { "\($0.0)=\($0.1)" }.joined(separator: "&") }

        init(_ layer: Int, _ geometry: String, _ relation: String? = nil, _ names: [String], type: String? = nil) {
            self.layer = layer
            fields = [("geometry", geometry)]
            if let relation { fields.append(("spatialRel", "esriSpatialRel" + relation)) }
            if let type { fields.append(("geometryType", type)) }
            self.names = names
        }
    }

    static let cases: [Case] = [
        // A box in the square's hole meets the square's box, not the square.
        Case(0, "4.5,4.5,5.5,5.5", nil, []), Case(0, "4.5,4.5,5.5,5.5", "Within", []), Case(3, "4.5,4.5,5.5,5.5", nil, ["hole"]),
        Case(2, "4.5,4.5,5.5,5.5", nil, ["single"]), Case(0, "4.5,4.5,5.5,5.5", "EnvelopeIntersects", ["square"]),
        // A box in the square's solid part: the square holds it.
        Case(0, "1,1,3,3", nil, ["square"]), Case(0, "1,1,3,3", "Within", ["square"]), Case(0, "1,1,3,3", "Contains", []),
        Case(0, "-1,-1,11,11", "Contains", ["square"]), Case(0, "-1,-1,41,11", "Contains", ["pair", "square", "triangle"]),
        // Across the gap between the pair's two parts: it meets both, lies within neither.
        Case(0, "21,0.5,25,1.5", nil, ["pair"]), Case(0, "21,0.5,25,1.5", "Within", []), Case(0, "21,0.5,25,1.5", "Contains", []),
        // A line's box, not its segment: the diagonal passes (5,25), not the box at x 0..1, y 25..26.
        Case(1, "0,25,1,26", nil, []), Case(1, "4,24,6,26", nil, ["diagonal"]), Case(1, "21,21,24,29", nil, []),
        Case(1, "4,21,5,22", "EnvelopeIntersects", ["diagonal"]), Case(1, "19,19,26,31", "Contains", ["twin"]),
        // A polygon filter: (1,1) inside it, (5,5) on its long side, (10,5) outside.
        Case(3, #"{"rings":[[[0,0],[0,10],[10,0],[0,0]]]}"#, nil, ["corner", "hole"], type: "esriGeometryPolygon"),
        Case(3, #"{"rings":[[[0,0],[0,10],[10,0],[0,0]]]}"#, "Contains", ["corner"]),
        Case(2, #"{"rings":[[[0,0],[0,10],[10,0]]]}"#, "Contains", []), Case(2, #"{"rings":[[[0,0],[0,10],[10,0]]]}"#, nil, ["single", "spread"]),
        // The triangle as its own filter: it contains and lies within itself.
        Case(0, #"{"rings":[[[30,0],[30,10],[40,0],[30,0]]]}"#, "Contains", ["triangle"]),
        Case(0, #"{"rings":[[[30,0],[30,10],[40,0],[30,0]]]}"#, "Within", ["triangle"]),
        // A point and a line as filters.
        Case(0, "5,5", nil, []), Case(0, "2,2", "Within", ["square"]), Case(1, #"{"paths":[[[0,30],[10,20]]]}"#, nil, ["diagonal"]),
        Case(0, #"{"paths":[[[21,1],[25,1]]]}"#, "Intersects", ["pair"]),
    ]

    @Test("each relation selects the features computed by hand, on every geometry type", .timeLimit(.minutes(1)))
    func relations() async throws {
        try await Self.withShapes { client in
            for query in Self.cases {
                let selected = try await Self.names(client, query.layer, query.fields)
                #expect(selected == query.names, "\(query)")
            }
        }
    }

    @Test("a Web Mercator filter selects what its WGS 84 twin selects", .timeLimit(.minutes(1)))
    func mercator() async throws {
        try await Self.withShapes { client in
            let low = QuerySpatialReference.project(longitude: 1, latitude: 1)
            let high = QuerySpatialReference.project(longitude: 3, latitude: 3)
            let box = [("geometry", "\(low.x),\(low.y),\(high.x),\(high.y)"), ("inSR", "102100"), ("spatialRel", "esriSpatialRelWithin")]
            let selected1 = try await Self.names(client, 0, box)
            #expect(selected1 == ["square"])
            let (a, b, c) = (
                QuerySpatialReference.project(longitude: 0.5, latitude: 0.5), QuerySpatialReference.project(longitude: 0.5, latitude: 3),
                QuerySpatialReference.project(longitude: 3, latitude: 0.5)
            )
            let ring = #"{"rings":[[[\#(a.x),\#(a.y)],[\#(b.x),\#(b.y)],[\#(c.x),\#(c.y)],[\#(a.x),\#(a.y)]]],"spatialReference":{"wkid":102100}}"#
            let selected2 = try await Self.names(client, 3, [("geometry", ring)])
            #expect(selected2 == ["corner"])
        }
    }

    @Test("the index follows every edit: a moved polygon is found where it went, a deleted one nowhere", .timeLimit(.minutes(1)))
    func indexFollowsEdits() async throws {
        try await Self.withShapes { client in
            let layer = client.url("shapes", "/0")
            let moved = #"[{"attributes":{"OBJECTID":1},"geometry":{"rings":[[[60,0],[60,10],[70,10],[70,0],[60,0]]]}}]"#
            let added = #"[{"attributes":{"name":"new"},"geometry":{"rings":[[[2,2],[2,3],[3,3],[3,2],[2,2]]]}}]"#
            let answer = try await client.post(layer + "/applyEdits", [("updates", moved), ("adds", added), ("deletes", "2")])
            #expect(answer["updateResults"]?[0]?["success"] == true && answer["addResults"]?[0]?["success"] == true)
            #expect(answer["deleteResults"]?[0]?["success"] == true)
            let selected3 = try await Self.names(client, 0, [("geometry", "1,1,3,3")])
            #expect(selected3 == ["new"])
            let selected4 = try await Self.names(client, 0, [("geometry", "61,1,63,3")])
            #expect(selected4 == ["square"])
            let selected5 = try await Self.names(client, 0, [("geometry", "19,-1,27,3")])
            #expect(selected5 == [])
            let cleared = try await client.post(layer + "/applyEdits", [("updates", #"[{"attributes":{"OBJECTID":1},"geometry":{"rings":[]}}]"#)])
            #expect(cleared["updateResults"]?[0]?["success"] == true)
            let selected6 = try await Self.names(client, 0, [("geometry", "-180,-90,180,90"), ("spatialRel", "esriSpatialRelEnvelopeIntersects")])
            #expect(selected6 == ["new", "triangle"])
        }
    }

    @Test("count, ids and statistics answer over the same filtered rows as features", .timeLimit(.minutes(1)))
    func everyOutputForm() async throws {
        try await Self.withShapes { client in
            let url = client.url("shapes", "/0/query")
            let filter = [("geometry", "-1,-1,41,11"), ("spatialRel", "esriSpatialRelContains")]
            #expect(try await client.get(url, filter + [("returnCountOnly", "true")])["count"] == 3)
            #expect(try await client.get(url, filter + [("returnIdsOnly", "true")])["objectIds"] == [1, 2, 3])
            let hole = [("geometry", "4.5,4.5,5.5,5.5")]
            #expect(try await client.get(url, hole + [("returnCountOnly", "true")])["count"] == 0)
            let extent = try await client.get(url, [("geometry", "21,0.5,25,1.5"), ("returnExtentOnly", "true")])
            #expect(extent["extent"]?["xmin"] == 20 && extent["extent"]?["xmax"] == 26)
        }
    }

    @Test("a data file made before the index gets it, filled from its rows, when it is opened", .timeLimit(.minutes(1)))
    func indexOfAnOlderFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("boundaries.sqlite")
        let configure = { (configuration: inout LocalFeatureServerConfiguration) in
            configuration.databasePath = path
            configuration.dataset = "parkboundaries"
        }
        try await withConfiguredServer(configure) { _ in }
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(
                sql: "DROP TRIGGER layer_0_shapes_delete; DROP TABLE layer_0_shapes; DROP TRIGGER layer_1_shapes_delete; DROP TABLE layer_1_shapes")
        }
        try queue.close()
        let names = try await withConfiguredServer(configure) { endpoint in
            try await withCurlTransport { transport in
                let client = DatasetClient(transport: transport, endpoint: endpoint)
                // Square Park's solid part, then its hole.
                let solid = try await Self.names(client, 0, [("geometry", "-104.99,40.01,-104.98,40.02")], service: "parkboundaries")
                let hole = try await Self.names(client, 0, [("geometry", "-104.96,40.04,-104.94,40.06")], service: "parkboundaries")
                return [solid, hole]
            }
        }
        #expect(names == [["Square Park"], []])
        let indexed = try await DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM layer_0_shapes") }
        #expect(indexed == 1)
    }

    /// The names of the features of `layer` that `fields` select, sorted.
    static func names(_ client: DatasetClient, _ layer: Int, _ fields: [(String, String)], service: String = "shapes") async throws -> [String] {
        let answer = try await client.get(client.url(service, "/\(layer)/query"), fields + [("outFields", "name"), ("returnGeometry", "false")])
        if let error = answer["error"] { Issue.record("\(fields): \(error)") }
        return (answer["features"]?.arrayValue ?? []).compactMap { $0["attributes"]?["name"]?.stringValue }.sorted()
    }
}
