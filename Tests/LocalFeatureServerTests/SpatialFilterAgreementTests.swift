import FeatureModel
import Foundation
import Testing

@testable import LocalFeatureServer

/// The server's spatial filters against an independent computation: Python's shapely (its own GEOS build, reached
/// through none of this project's code) over the same rows. Random polygons (some with a hole, some of two parts),
/// polylines (some of two paths) and points; random boxes and polygons as filters, with every relation; each answer
/// over libcurl compared id for id with shapely's.
@Suite(.enabled(if: Shapely.available, "needs python3 with shapely (scripts/test installs it with pip)"))
struct SpatialFilterAgreementTests {
    @Test("every relation on every geometry type selects what shapely selects", .timeLimit(.minutes(2)))
    func agreesWithShapely() async throws {
        var random = SeededRandom(seed: 42)
        let polygons = (0..<60).map { _ in RandomShapes.polygon(&random) }
        let lines = (0..<60).map { _ in RandomShapes.polyline(&random) }
        let points = (0..<150).map { _ in #"{"x":\#(random.next(in: 0...10)),"y":\#(random.next(in: 0...10))}"# }
        let filters = (0..<24).map { index in index % 2 == 0 ? RandomShapes.box(&random) : RandomShapes.star(&random, radius: 0.5...2.5) }
        let layers = [("esriGeometryPolygon", polygons), ("esriGeometryPolyline", lines), ("esriGeometryPoint", points)]
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("random.json")
        let definition = layers.enumerated().map { index, layer in
            SpatialFilterHTTPTests.layer(index, layer.0, layer.1.enumerated().map { ("r\($0.offset + 1)", $0.element) })
        }
        try #"{"name": "random", "layers": [\#(definition.joined(separator: ",\n"))]}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let relations = ["Intersects", "EnvelopeIntersects", "Contains", "Within"]
        let answered = try await withDatasetServer([path]) { client in
            var queries: [String] = []
            for layer in layers.indices {
                for filter in filters {
                    for relation in relations {
                        let fields = [("geometry", filter), ("spatialRel", "esriSpatialRel" + relation), ("returnIdsOnly", "true")]
                        let answer = try await client.get(client.url("random", "/\(layer)/query"), fields)
                        let ids = answer["objectIds"]?.arrayValue?.compactMap(\.intValue) ?? []
                        #expect(answer["error"] == nil, "\(fields)")
                        queries.append(#"{"layer":\#(layer),"filter":\#(filter),"relation":"\#(relation)","ids":\#(ids.sorted())}"#)
                    }
                }
            }
            return queries
        }
        let rows = layers.map { "[" + $0.1.joined(separator: ",") + "]" }.joined(separator: ",")
        let input = directory.path("answers.json")
        try #"{"layers":[\#(rows)],"queries":[\#(answered.joined(separator: ","))]}"#.write(toFile: input, atomically: true, encoding: .utf8)
        let result = try ChildProcess.run(["python3", "-c", Shapely.script, input])
        let report = String(decoding: result.output, as: UTF8.self)
        #expect(result.status == 0, "\(String(decoding: result.errors, as: UTF8.self))")
        // Every mismatch is a line; the last line counts the queries and the features selected, so an empty answer
        // everywhere cannot pass.
        let reported = report.split(separator: "\n")
        #expect(reported.count == 1, "\(reported.dropLast().prefix(10).joined(separator: "\n"))")
        let totals = reported.last.map { $0.split(separator: " ").compactMap { Int($0) } } ?? []
        #expect(totals.count == 2 && totals[0] == answered.count && totals[1] > answered.count, "\(report)")
    }
}

/// Deterministic random numbers (a 64-bit linear congruential generator), so a failure reproduces.
struct SeededRandom {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next(in range: ClosedRange<Double>) -> Double {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return range.lowerBound + Double(state >> 11) / Double(1 << 53) * (range.upperBound - range.lowerBound)
    }
}

/// Random ArcGIS JSON shapes in the square 0…10 by 0…10.
enum RandomShapes {
    /// A star-shaped ring around (x, y): vertices at increasing angles, clockwise when `clockwise`, closed.
    static func ring(_ random: inout SeededRandom, x: Double, y: Double, radius: ClosedRange<Double>, clockwise: Bool) -> [[Double]] {
        let count = Int(random.next(in: 8...12))
        var ring = (0..<count).map { index -> [Double] in
            let angle = (Double(index) + random.next(in: 0...0.5)) / Double(count) * 2 * .pi
            let distance = random.next(in: radius)
            return [x + distance * cos(angle), y + distance * sin(angle)]
        }
        if clockwise { ring.reverse() }
        return ring + [ring[0]]
    }

    static func text(_ rings: [[[Double]]]) -> String {
        let texts = rings.map { "[" + $0.map { "[\($0[0]),\($0[1])]" }.joined(separator: ",") + "]" }
        return #"{"rings":[\#(texts.joined(separator: ","))]}"#
    }

    /// A polygon: one star, a third with a hole, some of two parts (never overlapping: the shapes are valid).
    static func polygon(_ random: inout SeededRandom) -> String {
        let (x, y) = (random.next(in: 1...9), random.next(in: 1...9))
        let kind = random.next(in: 0...1)
        var rings = [ring(&random, x: x, y: y, radius: 0.4...1.0, clockwise: true)]
        if kind < 0.33 {
            rings.append(ring(&random, x: x, y: y, radius: 0.05...0.25, clockwise: false))
        } else if kind < 0.53, hypot(10 - 2 * x, 10 - 2 * y) > 1.6 {
            rings.append(ring(&random, x: 10 - x, y: 10 - y, radius: 0.2...0.5, clockwise: true))
        }
        return text(rings)
    }

    /// A zig-zag of 2 to 8 vertices; a fifth have a second path.
    static func polyline(_ random: inout SeededRandom) -> String {
        func path(_ random: inout SeededRandom) -> String {
            var (x, y) = (random.next(in: 0...10), random.next(in: 0...10))
            var vertices = ["[\(x),\(y)]"]
            for _ in 0..<Int(random.next(in: 1...7.99)) {
                x = min(10, max(0, x + random.next(in: -1.5...1.5)))
                y = min(10, max(0, y + random.next(in: -1.5...1.5)))
                vertices.append("[\(x),\(y)]")
            }
            return "[" + vertices.joined(separator: ",") + "]"
        }
        let paths = random.next(in: 0...1) < 0.2 ? [path(&random), path(&random)] : [path(&random)]
        return #"{"paths":[\#(paths.joined(separator: ","))]}"#
    }

    static func box(_ random: inout SeededRandom) -> String {
        let (x, y) = (random.next(in: 0...9), random.next(in: 0...9))
        return #"{"xmin":\#(x),"ymin":\#(y),"xmax":\#(x + random.next(in: 0.2...3)),"ymax":\#(y + random.next(in: 0.2...3))}"#
    }

    static func star(_ random: inout SeededRandom, radius: ClosedRange<Double>) -> String {
        text([ring(&random, x: random.next(in: 1...9), y: random.next(in: 1...9), radius: radius, clockwise: true)])
    }
}

/// Python's shapely, and the script that answers the same queries with it.
enum Shapely {
    static let available: Bool = (try? ChildProcess.run(["python3", "-c", "import shapely"]).status) == 0

    /// Reads the rows and answers, prints one line per disagreeing query and a last line: queries, ids selected.
    static let script = """
        import json, sys
        from shapely.geometry import Point, MultiPoint, LineString, MultiLineString, Polygon, MultiPolygon, box
        def clockwise(ring):
            return sum((b[0] - a[0]) * (b[1] + a[1]) for a, b in zip(ring, ring[1:])) > 0
        def shape(g):
            if 'x' in g: return Point(g['x'], g['y'])
            if 'points' in g: return MultiPoint(g['points'])
            if 'paths' in g:
                lines = [LineString(p) for p in g['paths']]
                return lines[0] if len(lines) == 1 else MultiLineString(lines)
            if 'xmin' in g: return box(g['xmin'], g['ymin'], g['xmax'], g['ymax'])
            outers = [[r, []] for r in g['rings'] if clockwise(r)]
            for hole in (r for r in g['rings'] if not clockwise(r)):
                next(o for o in outers if Polygon(o[0]).contains(Point(hole[0])))[1].append(hole)
            parts = [Polygon(o, h) for o, h in outers]
            return parts[0] if len(parts) == 1 else MultiPolygon(parts)
        def relates(relation, filter, feature):
            if relation == 'Intersects': return filter.intersects(feature)
            if relation == 'EnvelopeIntersects': return box(*filter.bounds).intersects(box(*feature.bounds))
            if relation == 'Contains': return filter.contains(feature)
            return filter.within(feature)
        data = json.load(open(sys.argv[1]))
        layers = [[shape(g) for g in layer] for layer in data['layers']]
        selected = 0
        for q in data['queries']:
            filter = shape(q['filter'])
            expected = [i + 1 for i, f in enumerate(layers[q['layer']]) if relates(q['relation'], filter, f)]
            selected += len(expected)
            if expected != q['ids']:
                print('layer', q['layer'], q['relation'], json.dumps(q['filter']), 'server', q['ids'], 'shapely', expected)
        print(len(data['queries']), selected)
        """
}
