import FeatureModel
import GEOSSupport
import Testing

/// ArcGIS geometries through GEOS, checked against cases computed by hand.
@Suite struct GEOSGeometryTests {
    let context: GEOSContext

    init() throws { context = try GEOSContext() }

    /// A clockwise (ArcGIS outer) 10 × 10 square at the origin with a counter-clockwise 2 × 2 hole at (4, 4).
    static let squareWithHole: Geometry = .polygon(rings: [
        [[0, 0], [0, 10], [10, 10], [10, 0], [0, 0]],
        [[4, 4], [6, 4], [6, 6], [4, 6], [4, 4]],
    ])

    func point(_ x: Double, _ y: Double) throws -> GEOSGeometry { try context.geometry(.point(x: x, y: y)) }

    func envelope(_ xmin: Double, _ ymin: Double, _ xmax: Double, _ ymax: Double) throws -> GEOSGeometry {
        try context.geometry(.envelope(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax))
    }

    @Test("a polygon's counter-clockwise ring is a hole: points in it are outside, points on the edge intersect but are not within")
    func holes() throws {
        let polygon = try context.geometry(Self.squareWithHole)
        #expect(polygon.intersects(try point(1, 1)))
        #expect(!polygon.intersects(try point(5, 5)), "inside the hole")
        #expect(try polygon.intersects(point(0, 5)) && !(point(0, 5)).within(polygon), "on the outer edge")
        #expect(polygon.contains(try envelope(1, 1, 3, 3)))
        #expect(!polygon.contains(try envelope(3, 3, 7, 7)), "covers the hole")
        #expect(polygon.intersects(try envelope(3, 3, 7, 7)))
        #expect(try envelope(-1, -1, 11, 11).contains(polygon) && polygon.within(try envelope(-1, -1, 11, 11)))
        let box = try #require(polygon.envelope)
        #expect(box.xmin == 0 && box.ymin == 0 && box.xmax == 10 && box.ymax == 10)
    }

    @Test("several outer rings make a multipolygon, each hole going to the outer ring that holds it")
    func multipolygon() throws {
        let two = try context.geometry(
            .polygon(rings: [
                [[0, 0], [0, 1], [1, 1], [1, 0], [0, 0]],
                [[20, 20], [20, 30], [30, 30], [30, 20], [20, 20]],
                [[24, 24], [26, 24], [26, 26], [24, 26], [24, 24]],
            ]))
        #expect(try two.intersects(point(0.5, 0.5)) && two.intersects(point(21, 21)))
        #expect(try !two.intersects(point(25, 25)) && !two.intersects(point(10, 10)))
        #expect(two.vertexCount == 15)
        #expect(throws: GEOSError.self) {
            try context.geometry(
                .polygon(rings: [[[0, 0], [0, 1], [1, 1], [1, 0], [0, 0]], [[5, 5], [6, 5], [6, 6], [5, 6], [5, 5]]]))
        }
        // A lone counter-clockwise ring is drawn as an outer ring, as ArcGIS clients draw it.
        let lone = try context.geometry(.polygon(rings: [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]]))
        #expect(lone.intersects(try point(0.5, 0.5)))
    }

    @Test("a polyline is tested on its segments, not its bounding box; a multipoint on its points")
    func linesAndPoints() throws {
        let diagonal = try context.geometry(.polyline(paths: [[[0, 0], [10, 10]]]))
        #expect(!diagonal.intersects(try envelope(8, 0, 10, 2)), "the box overlaps the line's box, not the line")
        #expect(diagonal.intersects(try envelope(4, 4.5, 6, 5.5)), "crosses the box with no vertex inside it")
        let twoPaths = try context.geometry(.polyline(paths: [[[0, 0], [1, 0]], [[0, 5], [1, 5]]]))
        #expect(try twoPaths.intersects(envelope(0.5, 4.9, 0.6, 5.1)) && !twoPaths.intersects(envelope(0, 2, 1, 3)))
        let points = try context.geometry(.multipoint(points: [[1, 1], [9, 9]]))
        #expect(try points.intersects(envelope(8, 8, 10, 10)) && !points.intersects(envelope(4, 4, 6, 6)))
        #expect(try envelope(0, 0, 10, 10).prepared().contains(points))
        #expect(try !(envelope(0, 0, 5, 5).prepared().contains(points)) && (envelope(0, 0, 5, 5).prepared().intersects(points)))
    }

    @Test("malformed input is an error, not a crash: open rings, short rings and paths, missing or infinite coordinates")
    func malformed() {
        let cases: [Geometry] = [
            .polygon(rings: [[[0, 0], [0, 1], [1, 1], [1, 0]]]),
            .polygon(rings: [[[0, 0], [0, 1], [0, 0]]]),
            .polyline(paths: [[[0, 0]]]),
            .polyline(paths: [[[0, 0], [1]]]),
            .multipoint(points: [[1]]),
            .polyline(paths: [[[0, 0], [.infinity, 1]]]),
        ]
        for geometry in cases {
            #expect(throws: GEOSError.self, "\(geometry)") { try context.geometry(geometry) }
        }
    }

    @Test("simplify moves no point more than the tolerance, keeps the ends and the hole, and leaves points alone")
    func simplify() throws {
        // A zig-zag of amplitude 0.1 along y = 0: within a tolerance of 0.5 it is the straight line from end to end.
        let zigzag = (0...20).map { [Double($0), $0 % 2 == 0 ? 0 : 0.1] }
        let line = try context.geometry(.polyline(paths: [zigzag])).simplified(tolerance: 0.5)
        #expect(try line.arcGIS() == .polyline(paths: [[[0, 0], [20, 0]]]))
        let kept = try context.geometry(.polyline(paths: [zigzag])).simplified(tolerance: 0.05)
        #expect(kept.vertexCount == 21, "a tolerance under the amplitude keeps every vertex")
        // A square ring with a vertex 0.2 off its bottom edge: the vertex goes, the hole stays, nothing collapses.
        let bumpy = try context.geometry(
            .polygon(rings: [
                [[0, 0], [0, 10], [10, 10], [10, 0], [5, 0.2], [0, 0]],
                [[4, 4], [6, 4], [6, 6], [4, 6], [4, 4]],
            ])
        ).simplified(tolerance: 0.5)
        #expect(try bumpy.arcGIS() == context.geometry(Self.squareWithHole).arcGIS())
        #expect(try context.geometry(.point(x: 3, y: 4)).simplified(tolerance: 100).arcGIS() == .point(x: 3, y: 4))
    }

    @Test("back to ArcGIS JSON: outer rings clockwise and holes counter-clockwise whatever GEOS held")
    func roundTrip() throws {
        let out = try context.geometry(Self.squareWithHole).arcGIS()
        guard case .polygon(let rings, _) = out else {
            Issue.record("not a polygon: \(out)")
            return
        }
        #expect(rings.count == 2)
        // Shoelace sums by hand: negative (clockwise) for the outer ring, positive for the hole.
        func twiceSignedArea(_ ring: [[Double]]) -> Double {
            zip(ring, ring.dropFirst()).reduce(0) { $0 + $1.0[0] * $1.1[1] - $1.1[0] * $1.0[1] }
        }
        #expect(twiceSignedArea(rings[0]) == -200 && twiceSignedArea(rings[1]) == 8)
        #expect(try context.geometry(.multipoint(points: [[1, 2], [3, 4]])).arcGIS() == .multipoint(points: [[1, 2], [3, 4]]))
        #expect(
            try context.geometry(.polyline(paths: [[[0, 0], [1, 1]], [[2, 2], [3, 3]]])).arcGIS()
                == .polyline(paths: [[[0, 0], [1, 1]], [[2, 2], [3, 3]]]))
    }
}
