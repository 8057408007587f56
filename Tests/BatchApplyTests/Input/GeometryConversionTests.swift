import BatchApply
import FeatureModel
import Testing

@Suite struct GeometryConversionTests {
    // Counter-clockwise square (GeoJSON's right-hand rule) and a clockwise hole inside it.
    static let exteriorCCW: JSONValue = [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]
    static let holeCW: JSONValue = [[2, 2], [2, 4], [4, 4], [4, 2], [2, 2]]

    private func esri(_ geometry: JSONValue) throws -> Geometry? {
        try GeoJSONGeometry.esriGeometry(geometry, spatialReference: SpatialReference(wkid: 4326))
    }

    @Test("a counter-clockwise GeoJSON exterior comes out clockwise and its hole counter-clockwise")
    func orientation() throws {
        let rings = try #require(InputTestSupport.rings(try esri(["type": "Polygon", "coordinates": [Self.exteriorCCW, Self.holeCW]])))
        #expect(rings.count == 2)
        #expect(SimpleGeometry.signedDoubleArea(rings[0]) < 0)
        #expect(SimpleGeometry.signedDoubleArea(rings[1]) > 0)
        #expect(rings[0].first == rings[0].last)
        #expect(rings[1].first == rings[1].last)
        #expect(rings[0] == [[0, 0], [0, 10], [10, 10], [10, 0], [0, 0]])
    }

    @Test("rings already in Esri order are left as they are")
    func alreadyClockwise() throws {
        let clockwise: JSONValue = [[0, 0], [0, 10], [10, 10], [10, 0], [0, 0]]
        let rings = try #require(InputTestSupport.rings(try esri(["type": "Polygon", "coordinates": [clockwise]])))
        #expect(rings[0] == [[0, 0], [0, 10], [10, 10], [10, 0], [0, 0]])
    }

    @Test("a MultiPolygon becomes one polygon with every ring, each exterior clockwise")
    func multiPolygon() throws {
        let second: JSONValue = [[20, 0], [30, 0], [30, 10], [20, 10], [20, 0]]
        let geometry = try esri(["type": "MultiPolygon", "coordinates": [[Self.exteriorCCW, Self.holeCW], [second]]])
        let rings = try #require(InputTestSupport.rings(geometry))
        #expect(rings.count == 3)
        #expect(rings.map { SimpleGeometry.signedDoubleArea($0) < 0 } == [true, false, true])
    }

    @Test("z is kept when positions have three coordinates")
    func keepsZ() throws {
        #expect(try esri(["type": "Point", "coordinates": [1, 2, 3]]) == .point(x: 1, y: 2, z: 3, spatialReference: SpatialReference(wkid: 4326)))
        let line = try esri(["type": "LineString", "coordinates": [[0, 0, 5], [1, 1, 6]]])
        #expect(line == .polyline(paths: [[[0, 0, 5], [1, 1, 6]]], spatialReference: SpatialReference(wkid: 4326)))
    }

    @Test("points, multipoints and lines convert; null geometry is nil")
    func otherTypes() throws {
        #expect(
            try esri(["type": "MultiPoint", "coordinates": [[1, 2], [3, 4]]])
                == .multipoint(points: [[1, 2], [3, 4]], spatialReference: SpatialReference(wkid: 4326)))
        #expect(
            try esri(["type": "MultiLineString", "coordinates": [[[0, 0], [1, 1]], [[2, 2], [3, 3]]]])
                == .polyline(paths: [[[0, 0], [1, 1]], [[2, 2], [3, 3]]], spatialReference: SpatialReference(wkid: 4326)))
        #expect(try esri(nil) == nil)
    }

    static let invalidGeometries: [(JSONValue, String)] = [
        (["type": "GeometryCollection", "geometries": []], "GeometryCollection"),
        (["type": "Point", "coordinates": [1, "a"]], "not a number"),
        (["type": "Point", "coordinates": [1]], "needs x and y"),
        (["type": "LineString", "coordinates": [[1, 2]]], "at least 2"),
        (["type": "Polygon", "coordinates": [[[0, 0], [1, 0], [0, 0]]]], "at least 4"),
        (["type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1]]]], "not closed"),
        (["type": "Circle", "coordinates": [0, 0]], "unknown geometry type"),
    ]

    @Test("invalid geometries are problems that say what is wrong", arguments: invalidGeometries)
    func invalid(geometry: JSONValue, expected: String) {
        #expect {
            _ = try esri(geometry)
        } throws: { error in
            (error as? GeometryProblem)?.reason.contains(expected) == true
        }
    }

    @Test(
        "legacy crs members name the spatial reference",
        arguments: [
            ("urn:ogc:def:crs:EPSG::3857", 3857), ("EPSG:2056", 2056), ("urn:ogc:def:crs:OGC:1.3:CRS84", 4326),
            ("http://www.opengis.net/def/crs/EPSG/0/25832", 25832),
        ])
    func crs(name: String, wkid: Int) throws {
        #expect(try GeoJSONGeometry.wkid(ofCRS: ["type": "name", "properties": ["name": .string(name)]]) == wkid)
    }

    @Test("an unknown crs name is a problem")
    func unknownCRS() {
        #expect(throws: GeometryProblem.self) { try GeoJSONGeometry.wkid(ofCRS: ["type": "name", "properties": ["name": "local grid"]]) }
    }
}
