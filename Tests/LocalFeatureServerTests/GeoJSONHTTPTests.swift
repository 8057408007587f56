import FeatureModel
import FeatureServiceClient
import Foundation
import Testing

@testable import LocalFeatureServer

/// `f=geojson` over libcurl against a real server: every geometry type in its RFC 7946 form, holes regrouped under
/// the outer ring that holds them and rings rewound, checked by hand and by Python's shapely reading the same text.
@Suite struct GeoJSONHTTPTests {
    /// Two outer rings (clockwise, as ArcGIS stores them), a hole (counter-clockwise) in the second.
    static let park =
        #"{"rings":[[[0,0],[0,1],[1,1],[1,0],[0,0]],[[10,10],[10,14],[14,14],[14,10],[10,10]],[[11,11],[13,11],[13,13],[11,13],[11,11]]]}"#

    static func withLayers(_ body: @Sendable (DatasetClient) async throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path("geo.json")
        let layers = [
            SpatialFilterHTTPTests.layer(0, "esriGeometryPolygon", [("park", park), ("square", #"{"rings":[[[5,5],[5,6],[6,6],[6,5],[5,5]]]}"#)]),
            SpatialFilterHTTPTests.layer(
                1, "esriGeometryPolyline", [("one", #"{"paths":[[[0,0],[1,1]]]}"#), ("two", #"{"paths":[[[0,0],[1,1]],[[2,2],[3,2]]]}"#)]),
            SpatialFilterHTTPTests.layer(2, "esriGeometryPoint", [("point", #"{"x":-105.5,"y":40.25}"#)]),
            SpatialFilterHTTPTests.layer(3, "esriGeometryMultipoint", [("points", #"{"points":[[1,2],[3,4]]}"#)]),
        ]
        try #"{"name": "geo", "layers": [\#(layers.joined(separator: ","))]}"#.write(toFile: file, atomically: true, encoding: .utf8)
        try await withDatasetServer([file], body)
    }

    /// The raw answer to a layer query with `f=geojson`: its content type and text.
    static func geoJSON(_ client: DatasetClient, _ layer: Int, _ fields: [(String, String)] = []) async throws -> (type: String?, text: String) {
        let query = (fields + [("where", "1=1"), ("outFields", "*"), ("orderByFields", "OBJECTID"), ("f", "geojson")]).map { FormField($0.0, $0.1) }
        let response = try await client.transport.send(HTTPRequest(url: client.url("geo", "/\(layer)/query") + "?" + FormEncoding.encode(query)))
        return (response.header("Content-Type"), String(decoding: response.body, as: UTF8.self))
    }

    /// Twice the signed area of a ring: positive when counter-clockwise.
    static func signedArea(_ ring: [[Double]]) -> Double {
        zip(ring, ring.dropFirst()).reduce(0) { $0 + $1.0[0] * $1.1[1] - $1.1[0] * $1.0[1] }
    }

    @Test(
        "polygons regroup holes and wind outer rings counter-clockwise; lines, points and multipoints take their GeoJSON types",
        .timeLimit(.minutes(1)))
    func shapes() async throws {
        try await Self.withLayers { client in
            let (type, text) = try await Self.geoJSON(client, 0)
            #expect(type == "application/geo+json; charset=utf-8")
            let collection = try JSONReader.parse(text)
            #expect(collection["type"] == "FeatureCollection" && collection["properties"] == nil)
            let features = try #require(collection["features"]?.arrayValue)
            #expect(features.map { $0["id"] } == [.int(1), .int(2)])
            #expect(features.map { $0["properties"]?["name"] } == ["park", "square"])
            let park = try #require(features.first?["geometry"])
            #expect(park["type"] == "MultiPolygon")
            let polygons = try WireJSON.decode([[[[Double]]]].self, from: try WireJSON.string(try #require(park["coordinates"])))
            #expect(polygons.map(\.count).sorted() == [1, 2], "the hole sits with the ring that holds it")
            for polygon in polygons {
                #expect(Self.signedArea(polygon[0]) > 0, "outer ring counter-clockwise")
                #expect(polygon.dropFirst().allSatisfy { Self.signedArea($0) < 0 }, "holes clockwise")
            }
            let areas = polygons.map { $0.reduce(0) { $0 + Self.signedArea($1) } / 2 }.sorted()
            #expect(areas == [1, 12], "16 − 4 for the park with its hole")
            #expect(features.last?["geometry"]?["type"] == "Polygon")

            let lines = try JSONReader.parse(try await Self.geoJSON(client, 1).text)["features"]?.arrayValue ?? []
            #expect(lines.map { $0["geometry"]?["type"] } == ["LineString", "MultiLineString"])
            #expect(lines.first?["geometry"]?["coordinates"] == .array([.array([.int(0), .int(0)]), .array([.int(1), .int(1)])]))
            let point = try JSONReader.parse(try await Self.geoJSON(client, 2, [("outSR", "102100")]).text)["features"]?[0]?["geometry"]
            #expect(point == .object(["type": "Point", "coordinates": .array([.double(-105.5), .double(40.25)])]), "WGS 84 whatever outSR says")
            let points = try JSONReader.parse(try await Self.geoJSON(client, 3).text)["features"]?[0]?["geometry"]
            #expect(points?["type"] == "MultiPoint")
        }
    }

    @Test("a page with more rows behind it says so in the collection's properties; counts stay JSON", .timeLimit(.minutes(1)))
    func pagingAndCounts() async throws {
        try await Self.withLayers { client in
            let page = try JSONReader.parse(try await Self.geoJSON(client, 0, [("resultRecordCount", "1")]).text)
            #expect(page["properties"]?["exceededTransferLimit"] == .bool(true))
            #expect(page["features"]?.arrayValue?.count == 1)
            let (type, text) = try await Self.geoJSON(client, 0, [("returnCountOnly", "true")])
            #expect(type == FeatureServerResponder.contentType && text == #"{"count":2}"#)
            let layer = try await client.get(client.url("geo", "/0"))
            #expect(layer["supportedQueryFormats"]?.stringValue?.contains("geoJSON") == true)
        }
    }

    @Test("shapely reads the answer as valid shapes with the hand-computed areas", .enabled(if: Shapely.available), .timeLimit(.minutes(1)))
    func shapelyReadsIt() async throws {
        try await Self.withLayers { client in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let file = directory.path("answer.geojson")
            try (try await Self.geoJSON(client, 0).text).write(toFile: file, atomically: true, encoding: .utf8)
            let script = """
                import json, sys
                from shapely.geometry import shape
                for f in json.load(open(sys.argv[1]))['features']:
                    g = shape(f['geometry'])
                    print(f['properties']['name'], g.geom_type, g.is_valid, g.area, len(g.geoms) if hasattr(g, 'geoms') else 1)
                """
            let result = try ChildProcess.run(["python3", "-c", script, file])
            #expect(result.status == 0, "\(String(decoding: result.errors, as: UTF8.self))")
            #expect(String(decoding: result.output, as: UTF8.self) == "park MultiPolygon True 13.0 2\nsquare Polygon True 1.0 1\n")
        }
    }
}
