import FeatureModel
import Foundation
import LocalFeatureServer
import Testing

/// Generated polygons and polylines as the real server answers them over libcurl, judged by Python's shapely (its
/// own GEOS build, reached through none of this project's code): every shape valid, rings closed and wound as
/// ArcGIS wants, every hole inside its exterior ring, parts apart, all inside the layer's extent; and spatial
/// queries over them select what shapely selects.
@Suite(.enabled(if: Shapely.available, "needs python3 with shapely (scripts/test installs it with pip)"))
struct GeneratedShapesHTTPTests {
    static let rows = 200

    /// Checks the shapes of `layers[0]` (polygons) and `layers[1]` (polylines); one line per problem, then a
    /// last line: polygons, holes, polygons of several parts, polylines, polylines of several paths.
    static let validity = """
        import json, sys
        from shapely.geometry import LineString, MultiLineString, LinearRing, Polygon, MultiPolygon, box
        from shapely.validation import explain_validity
        data = json.load(open(sys.argv[1]))
        extent = box(*data['extent'])
        holes = multipart = multipath = 0
        for number, g in enumerate(data['layers'][0], 1):
            rings = g['rings']
            if any(r[0] != r[-1] for r in rings): print(number, 'a ring is not closed')
            if LinearRing(rings[0]).is_ccw: print(number, 'the first ring is not clockwise')
            outers = [Polygon(r) for r in rings if not LinearRing(r).is_ccw]
            inners = [Polygon(r) for r in rings if LinearRing(r).is_ccw]
            owners = [[o for o in outers if o.contains(h)] for h in inners]
            if any(len(o) != 1 for o in owners): print(number, 'a hole is not inside exactly one exterior ring')
            if any(a.intersects(b) for i, a in enumerate(outers) for b in outers[i + 1:]): print(number, 'parts touch')
            parts = [Polygon(o.exterior.coords, [h.exterior.coords for h, w in zip(inners, owners) if w and w[0] is o]) for o in outers]
            shape = parts[0] if len(parts) == 1 else MultiPolygon(parts)
            if not shape.is_valid: print(number, explain_validity(shape))
            if not extent.contains(shape): print(number, 'outside the extent')
            holes += len(inners)
            multipart += len(parts) > 1
        for number, g in enumerate(data['layers'][1], 1):
            lines = [LineString(p) for p in g['paths']]
            shape = lines[0] if len(lines) == 1 else MultiLineString(lines)
            if not shape.is_valid: print('line', number, explain_validity(shape))
            if not extent.contains(shape): print('line', number, 'outside the extent')
            multipath += len(lines) > 1
        print(len(data['layers'][0]), holes, multipart, len(data['layers'][1]), multipath)
        """

    @Test("shapely finds every generated shape valid and selects what the server's spatial filters select", .timeLimit(.minutes(2)))
    func shapelyAgrees() async throws {
        var random = SeededRandom(seed: 7)
        let filters = (0..<16).map { index -> String in
            let (x, y) = (random.next(in: -124...(-70)), random.next(in: 25...46))
            if index % 2 == 0 {
                return #"{"xmin":\#(x),"ymin":\#(y),"xmax":\#(x + random.next(in: 1...12)),"ymax":\#(y + random.next(in: 1...6))}"#
            }
            return RandomShapes.text([RandomShapes.ring(&random, x: x, y: y, radius: 1...4, clockwise: true)])
        }
        let relations = ["Intersects", "EnvelopeIntersects", "Contains", "Within"]
        let (layers, queries) = try await withDatasetServer(["parkboundaries"], generatedRows: Self.rows) { client in
            var layers: [[String]] = []
            var queries: [String] = []
            for layer in 0...1 {
                let answer = try await client.get(
                    client.url("parkboundaries", "/\(layer)/query"), [("where", "1=1"), ("outFields", "OBJECTID"), ("orderByFields", "OBJECTID")])
                let features = answer["features"]?.arrayValue ?? []
                // Object IDs 1…N in order, so a feature's position is its ID for the agreement script.
                #expect(features.compactMap { $0["attributes"]?["OBJECTID"]?.intValue } == Array(1...Int64(Self.rows + 1)))
                layers.append(try features.map { try WireJSON.string(try #require($0["geometry"])) })
                for filter in filters {
                    for relation in relations {
                        let fields = [("geometry", filter), ("spatialRel", "esriSpatialRel" + relation), ("returnIdsOnly", "true")]
                        let ids = try await client.get(client.url("parkboundaries", "/\(layer)/query"), fields)["objectIds"]?.arrayValue ?? []
                        queries.append(
                            #"{"layer":\#(layer),"filter":\#(filter),"relation":"\#(relation)","ids":\#(ids.compactMap(\.intValue).sorted())}"#)
                    }
                }
            }
            return (layers, queries)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let input = directory.path("shapes.json")
        let rows = layers.map { "[" + $0.joined(separator: ",") + "]" }.joined(separator: ",")
        try #"{"extent":[-125,24,-66,50],"layers":[\#(rows)],"queries":[\#(queries.joined(separator: ","))]}"#
            .write(toFile: input, atomically: true, encoding: .utf8)

        let checked = try ChildProcess.run(["python3", "-c", Self.validity, input])
        #expect(checked.status == 0, "\(String(decoding: checked.errors, as: UTF8.self))")
        let report = String(decoding: checked.output, as: UTF8.self).split(separator: "\n")
        #expect(report.count == 1, "\(report.dropLast().prefix(10).joined(separator: "\n"))")
        // polygons, holes, multipart polygons, polylines, multipart polylines: none of the kinds may be missing.
        let totals = report.last.map { $0.split(separator: " ").compactMap { Int($0) } } ?? []
        #expect(totals.count == 5 && totals[0] == Self.rows + 1 && totals[3] == Self.rows + 1, "\(report)")
        #expect(totals.count == 5 && totals[1] > 10 && totals[2] > 5 && totals[4] > 5, "\(report)")

        let agreed = try ChildProcess.run(["python3", "-c", Shapely.script, input])
        #expect(agreed.status == 0, "\(String(decoding: agreed.errors, as: UTF8.self))")
        let lines = String(decoding: agreed.output, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 1, "\(lines.dropLast().prefix(10).joined(separator: "\n"))")
        let selected = lines.last.map { $0.split(separator: " ").compactMap { Int($0) } } ?? []
        #expect(selected.count == 2 && selected[0] == queries.count && selected[1] > queries.count, "\(lines)")
    }
}
