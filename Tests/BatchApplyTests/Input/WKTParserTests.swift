import BatchApply
import FeatureModel
import Testing

@Suite struct WKTParserTests {
    @Test(
        "each geometry type, with Z, M and ZM variants",
        arguments: [
            ("POINT (1 2)", SimpleGeometry.point([1, 2])),
            ("point z (1 2 3)", .point([1, 2, 3])),
            ("POINT M (1 2 9)", .point([1, 2])),
            ("POINT ZM (1 2 3 9)", .point([1, 2, 3])),
            ("MULTIPOINT ((1 2), (3 4))", .multiPoint([[1, 2], [3, 4]])),
            ("MULTIPOINT (1 2, 3 4)", .multiPoint([[1, 2], [3, 4]])),
            ("LINESTRING (0 0, 1 -1.5e1)", .lineString([[0, 0], [1, -15]])),
            ("MULTILINESTRING ((0 0, 1 1), (2 2, 3 3))", .multiLineString([[[0, 0], [1, 1]], [[2, 2], [3, 3]]])),
            (
                "POLYGON ((0 0, 10 0, 10 10, 0 0), (1 1, 2 1, 2 2, 1 1))",
                .polygon([[[0, 0], [10, 0], [10, 10], [0, 0]], [[1, 1], [2, 1], [2, 2], [1, 1]]])
            ),
            (
                "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5)))",
                .multiPolygon([[[[0, 0], [1, 0], [1, 1], [0, 0]]], [[[5, 5], [6, 5], [6, 6], [5, 5]]]])
            ),
            ("POLYGON EMPTY", .empty),
            ("POINT Z EMPTY", .empty),
        ])
    func parses(text: String, expected: SimpleGeometry) throws {
        #expect(try WKTParser.parse(text).geometry == expected)
    }

    @Test("an EWKT SRID prefix is read")
    func srid() throws {
        #expect(try WKTParser.parse("SRID=3857;POINT(1 2)").srid == 3857)
    }

    @Test(
        "broken WKT says where",
        arguments: ["POINT (1)", "POINT (1 2", "LINESTRING 0 0, 1 1", "POINT (1 2) extra", "GEOMETRYCOLLECTION (POINT (1 2))"])
    func broken(text: String) {
        #expect(throws: GeometryProblem.self) { try WKTParser.parse(text) }
    }
}
