import FeatureModel
import Foundation
import Testing

@testable import LocalFeatureServer

/// `quantizationParameters` over libcurl against a real server: hand-computed grids for every geometry type, both
/// origins and both modes; and the dense shapes of ``GeneralizationHTTPTests`` decoded back the way a map client
/// does (sum the differences of each part, then apply the transform) and compared with the stored vertices.
@Suite struct QuantizationHTTPTests {
    /// A path whose third vertex lies 0.21 off the line through its neighbours: its own cell at tolerance 0.5, but
    /// within a cell of the line, so view mode (generalized to the cell) drops it and edit mode keeps it.
    static let path = "[[1,1],[1.1,1.05],[2,2.3],[3,3],[3.05,3.01],[5,1]]"

    static func withLayers(_ body: @Sendable (DatasetClient) async throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path("grid.json")
        let layers = [
            SpatialFilterHTTPTests.layer(0, "esriGeometryPoint", [("point", #"{"x":5,"y":5}"#)]),
            SpatialFilterHTTPTests.layer(1, "esriGeometryPolyline", [("path", #"{"paths":[\#(path)]}"#)]),
            SpatialFilterHTTPTests.layer(2, "esriGeometryMultipoint", [("points", #"{"points":[[1,1],[1.1,1.1],[4,4]]}"#)]),
            SpatialFilterHTTPTests.layer(
                3, "esriGeometryPolygon",
                [("square", #"{"rings":[[[2,2],[2,4],[4,4],[4,2],[2,2]]]}"#), ("speck", #"{"rings":[[[8,8],[8,8.1],[8.1,8.1],[8,8]]]}"#)]),
        ]
        try #"{"name": "grid", "layers": [\#(layers.joined(separator: ","))]}"#.write(toFile: file, atomically: true, encoding: .utf8)
        try await withDatasetServer([file], body)
    }

    static func parameters(mode: String = "view", origin: String = "upperLeft", tolerance: Double = 0.5) -> String {
        #"{"mode":"\#(mode)","originPosition":"\#(origin)","tolerance":\#(tolerance),"extent":{"xmin":0,"ymin":0,"xmax":20,"ymax":20}}"#
    }

    static func answer(_ client: DatasetClient, _ service: String, _ layer: Int, _ fields: [(String, String)]) async throws -> FeatureSet {
        let answer = try await client.get(client.url(service, "/\(layer)/query"), fields + [("where", "1=1"), ("orderByFields", "OBJECTID")])
        return try WireJSON.decode(FeatureSet.self, from: try WireJSON.string(answer))
    }

    @Test("each geometry type on hand-computed cells, both origins, differences after each part's first vertex", .timeLimit(.minutes(1)))
    func handComputed() async throws {
        try await Self.withLayers { client in
            let upper = [("quantizationParameters", Self.parameters(mode: "edit"))]
            let point = try await Self.answer(client, "grid", 0, upper)
            #expect(point.features.first?.geometry == .point(x: 10, y: 30))
            #expect(point.transform == QuantizationTransform(originPosition: .upperLeft, scale: [0.5, 0.5, 0, 0], translate: [0, 20, 0, 0]))
            let lowerPoint = try await Self.answer(client, "grid", 0, [("quantizationParameters", Self.parameters(origin: "lowerLeft"))])
            #expect(lowerPoint.features.first?.geometry == .point(x: 10, y: 10))
            #expect(lowerPoint.transform?.translate == [0, 0, 0, 0] && lowerPoint.transform?.originPosition == .lowerLeft)

            // (1,1)→(2,38); (1.1,1.05) same cell, dropped; (2,2.3)→(4,35); (3,3)→(6,34); (3.05,3.01) dropped; (5,1)→(10,38).
            let edit = try await Self.answer(client, "grid", 1, upper)
            #expect(edit.features.first?.geometry == .polyline(paths: [[[2, 38], [2, -3], [2, -1], [4, 4]]]))
            let view = try await Self.answer(client, "grid", 1, [("quantizationParameters", Self.parameters(mode: "view"))])
            #expect(view.features.first?.geometry == .polyline(paths: [[[2, 38], [4, -4], [4, 4]]]))
            let lowerEdit = try await Self.answer(client, "grid", 1, [("quantizationParameters", Self.parameters(mode: "edit", origin: "lowerLeft"))])
            #expect(lowerEdit.features.first?.geometry == .polyline(paths: [[[2, 2], [2, 3], [2, 1], [4, -4]]]))

            let points = try await Self.answer(client, "grid", 2, upper)
            #expect(points.features.first?.geometry == .multipoint(points: [[2, 38], [6, -6]]))

            // The square: (2,2)→(4,36), (2,4)→(4,32), (4,4)→(8,32), (4,2)→(8,36). The speck lies in one cell: kept as two vertices.
            let polygons = try await Self.answer(client, "grid", 3, upper)
            #expect(
                polygons.features.map(\.geometry) == [
                    .polygon(rings: [[[4, 36], [0, -4], [4, 0], [0, 4], [-4, 0]]]), .polygon(rings: [[[16, 24], [0, 0]]]),
                ])
            let viewed = try await Self.answer(client, "grid", 3, [("quantizationParameters", Self.parameters(mode: "view"))])
            #expect(viewed.features.map(\.geometry) == polygons.features.map(\.geometry), "generalizing to the cell loses no feature")
        }
    }

    @Test(
        "Web Mercator output, an extent given in 4326, the layer's extent by default; bad parameters are 400s naming the fix", .timeLimit(.minutes(1))
    )
    func referencesAndRefusals() async throws {
        try await Self.withLayers { client in
            let (x, y) = QuerySpatialReference.project(longitude: 5, latitude: 5)
            let (left, bottom) = QuerySpatialReference.project(longitude: 0, latitude: 0)
            let (_, top) = QuerySpatialReference.project(longitude: 20, latitude: 20)
            let mercator =
                #"{"tolerance":100,"extent":{"xmin":\#(left),"ymin":\#(bottom),"xmax":1e6,"ymax":\#(top),"spatialReference":{"wkid":102100}}}"#
            let degrees = #"{"tolerance":100,"extent":{"xmin":0,"ymin":0,"xmax":20,"ymax":20,"spatialReference":{"wkid":4326}}}"#
            for parameters in [mercator, degrees] {
                let set = try await Self.answer(client, "grid", 0, [("outSR", "102100"), ("quantizationParameters", parameters)])
                #expect(set.features.first?.geometry == .point(x: ((x - left) / 100).rounded(), y: ((top - y) / 100).rounded()), "\(parameters)")
                #expect(set.transform?.scale == [100, 100, 0, 0] && set.spatialReference?.wkid == 102100)
            }
            let refusals: [(String, String)] = [
                (#"{"mode":"draw","extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1}}"#, "mode must be one of view, edit"),
                (
                    #"{"originPosition":"center","extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1}}"#,
                    "originPosition must be one of upperLeft, lowerLeft"
                ),
                (#"{"tolerance":0,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1}}"#, "tolerance must be a number above 0"),
                (#"{"tolerance":1e-15,"extent":{"xmin":0,"ymin":0,"xmax":1,"ymax":1}}"#, "is too small"),
                (#"{"extent":{"xmin":2,"ymin":0,"xmax":1,"ymax":1}}"#, "xmin ≤ xmax"),
                (#"{"tolerance":1}"#, "extent is required"),
                ("view", "must be a JSON object"),
            ]
            for (parameters, reason) in refusals {
                let refused = try await client.get(client.url("grid", "/0/query"), [("where", "1=1"), ("quantizationParameters", parameters)])
                #expect(refused["error"]?["details"]?[0] == "'quantizationParameters' parameter is invalid", "\(parameters)")
                #expect(refused["error"]?["details"]?[1]?.stringValue?.contains(reason) == true, "\(parameters): \(refused)")
            }
            let defaulted = try await withDatasetServer(["parkboundaries"]) { parks in
                try await Self.answer(parks, "parkboundaries", 0, [("quantizationParameters", #"{"tolerance":0.01}"#)])
            }
            #expect(defaulted.transform?.translate == [-125, 50, 0, 0], "the layer's extent, upper left")
        }
    }

    /// The absolute output coordinates of a quantized part, as a client decodes them.
    static func decode(_ part: [[Double]], _ transform: QuantizationTransform) -> [[Double]] {
        var (i, j) = (0.0, 0.0)
        return part.enumerated().map { index, vertex in
            (i, j) = index == 0 ? (vertex[0], vertex[1]) : (i + vertex[0], j + vertex[1])
            let (x, y) = transform.coordinate(i, j)
            return [x, y]
        }
    }

    @Test(
        "decoded back, dense shapes lie within half a cell of their stored vertices (edit) and within the cell size plus half a cell (view)",
        .timeLimit(.minutes(1)))
    func decodedDenseShapes() async throws {
        try await GeneralizationHTTPTests.withShapes { client in
            let tolerance = 0.001
            let stored = GeneralizationHTTPTests.rings
            let halfCell = tolerance * 0.5.squareRoot() + 1e-12
            for mode in ["edit", "view"] {
                let parameters = #"{"mode":"\#(mode)","tolerance":\#(tolerance),"extent":{"xmin":3,"ymin":3,"xmax":7,"ymax":7}}"#
                let set = try await Self.answer(client, "dense", 0, [("quantizationParameters", parameters)])
                guard let transform = set.transform, case .polygon(let rings, _)? = set.features.first?.geometry else {
                    Issue.record("no quantized polygon in \(mode) mode")
                    continue
                }
                let decoded = rings.map { Self.decode($0, transform) }
                #expect(decoded.count == 2 && decoded.allSatisfy { $0.first == $0.last }, "rings stay closed")
                let vertices = decoded.reduce(0) { $0 + $1.count }
                let farthest = stored.flatMap { $0 }.map { GeneralizationHTTPTests.distance($0, to: decoded) }.max() ?? .infinity
                if mode == "edit" {
                    #expect(vertices > 1_500 && vertices <= 2_502, "\(vertices): only same-cell neighbours dropped")
                    #expect(farthest <= 2 * halfCell, "\(farthest)")
                    let storedVertices = stored.flatMap { $0 }
                    let nearest = decoded.flatMap { $0 }.map { vertex in
                        storedVertices.map { hypot($0[0] - vertex[0], $0[1] - vertex[1]) }.min() ?? .infinity
                    }
                    #expect((nearest.max() ?? .infinity) <= halfCell, "every answered vertex is a stored one snapped to its cell")
                } else {
                    #expect(vertices < 400, "\(vertices): generalized to the cell")
                    #expect(farthest <= tolerance + halfCell, "\(farthest)")
                }
            }
        }
    }
}
