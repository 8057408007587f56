import FeatureModel
import Foundation
import Testing

@testable import LocalFeatureServer

/// `maxAllowableOffset` over libcurl against a real server: a 2,000-vertex circle with a 500-vertex hole and a
/// 1,000-vertex sine wave, generalized; each answer checked by hand-computed distances from every stored vertex to
/// the answered shape.
@Suite struct GeneralizationHTTPTests {
    static func circle(x: Double, y: Double, radius: Double, count: Int, clockwise: Bool) -> [[Double]] {
        var ring = (0..<count).map { index -> [Double] in
            let angle = Double(index) / Double(count) * 2 * .pi
            return [x + radius * cos(angle), y + radius * sin(angle)]
        }
        if clockwise { ring.reverse() }
        return ring + [ring[0]]
    }

    static let rings = [circle(x: 5, y: 5, radius: 1, count: 2_000, clockwise: true), circle(x: 5, y: 5, radius: 0.3, count: 500, clockwise: false)]
    static let wave = (0...1_000).map { index -> [Double] in [Double(index) / 100, 20 + sin(Double(index) / 50)] }

    static func json(_ points: [[Double]]) -> String { "[" + points.map { "[\($0[0]),\($0[1])]" }.joined(separator: ",") + "]" }

    static func withShapes(_ body: @Sendable (DatasetClient) async throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("dense.json")
        let polygon = #"{"rings":[\#(rings.map(json).joined(separator: ","))]}"#
        let layers = [
            SpatialFilterHTTPTests.layer(0, "esriGeometryPolygon", [("circle", polygon)]),
            SpatialFilterHTTPTests.layer(1, "esriGeometryPolyline", [("wave", #"{"paths":[\#(json(wave))]}"#)]),
            SpatialFilterHTTPTests.layer(2, "esriGeometryPoint", [("point", #"{"x":5,"y":5}"#)]),
        ]
        try #"{"name": "dense", "layers": [\#(layers.joined(separator: ","))]}"#.write(toFile: path, atomically: true, encoding: .utf8)
        try await withDatasetServer([path], body)
    }

    /// The answered geometry of the one feature of `layer`.
    static func geometry(_ client: DatasetClient, _ layer: Int, _ fields: [(String, String)]) async throws -> Geometry? {
        let answer = try await client.get(client.url("dense", "/\(layer)/query"), fields + [("where", "1=1")])
        let set = try WireJSON.decode(FeatureSet.self, from: try WireJSON.string(answer))
        return set.features.first?.geometry
    }

    /// The distance from `point` to the nearest segment of `lines`.
    static func distance(_ point: [Double], to lines: [[[Double]]]) -> Double {
        var nearest = Double.infinity
        for line in lines {
            for (a, b) in zip(line, line.dropFirst()) {
                let (dx, dy) = (b[0] - a[0], b[1] - a[1])
                let length = dx * dx + dy * dy
                let t = length == 0 ? 0 : max(0, min(1, ((point[0] - a[0]) * dx + (point[1] - a[1]) * dy) / length))
                nearest = min(nearest, hypot(point[0] - (a[0] + t * dx), point[1] - (a[1] + t * dy)))
            }
        }
        return nearest
    }

    @Test("an offset in degrees keeps every stored vertex within it, the hole kept, far fewer vertices", .timeLimit(.minutes(1)))
    func degrees() async throws {
        try await Self.withShapes { client in
            guard case .polygon(let rings, _)? = try await Self.geometry(client, 0, [("maxAllowableOffset", "0.01")]) else {
                Issue.record("no polygon")
                return
            }
            #expect(rings.count == 2)
            let vertices = rings.reduce(0) { $0 + $1.count }
            #expect(vertices > 10 && vertices < 200, "\(vertices) of 2,502")
            let stored = Set(Self.rings.flatMap { $0 })
            #expect(rings.allSatisfy { $0.allSatisfy(stored.contains) }, "answered vertices are stored ones")
            let farthest = Self.rings.flatMap { $0 }.map { Self.distance($0, to: rings) }.max() ?? .infinity
            #expect(farthest <= 0.01 + 1e-12, "\(farthest)")
            guard case .polyline(let paths, _)? = try await Self.geometry(client, 1, [("maxAllowableOffset", "0.01")]) else {
                Issue.record("no polyline")
                return
            }
            #expect(paths.count == 1 && paths[0].count < 100 && paths[0].first == Self.wave.first && paths[0].last == Self.wave.last)
            #expect((Self.wave.map { Self.distance($0, to: paths) }.max() ?? .infinity) <= 0.01 + 1e-12)
        }
    }

    @Test("in Web Mercator the offset is in metres; no offset, 0 and points answer as stored; a negative one is a 400", .timeLimit(.minutes(1)))
    func metresAndEdges() async throws {
        try await Self.withShapes { client in
            let projected = Self.wave.map { point -> [Double] in
                let (x, y) = QuerySpatialReference.project(longitude: point[0], latitude: point[1])
                return [x, y]
            }
            guard case .polyline(let paths, _)? = try await Self.geometry(client, 1, [("maxAllowableOffset", "1000"), ("outSR", "102100")]) else {
                Issue.record("no polyline")
                return
            }
            #expect(paths[0].count < 100)
            #expect((projected.map { Self.distance($0, to: paths) }.max() ?? .infinity) <= 1000 + 1e-6)
            for fields in [[(String, String)](), [("maxAllowableOffset", "0")]] {
                guard case .polygon(let rings, _)? = try await Self.geometry(client, 0, fields) else { continue }
                #expect(rings.map(\.count) == [2_001, 501], "\(fields)")
            }
            let point = try await Self.geometry(client, 2, [("maxAllowableOffset", "5")])
            #expect(point == .point(x: 5, y: 5))
            let refused = try await client.get(client.url("dense", "/0/query"), [("where", "1=1"), ("maxAllowableOffset", "-1")])
            #expect(refused["error"]?["details"]?[0] == "'maxAllowableOffset' parameter is invalid")
        }
    }
}
