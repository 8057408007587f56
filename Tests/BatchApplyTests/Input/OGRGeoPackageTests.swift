import BatchApply
import FeatureModel
import Foundation
import Testing

/// GeoPackages written by GDAL's ogr2ogr, read back; skipped where ogr2ogr is not installed.
@Suite struct OGRGeoPackageTests {
    static let ogr2ogr = ["/usr/bin/ogr2ogr", "/usr/local/bin/ogr2ogr", "/opt/homebrew/bin/ogr2ogr"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    private func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Self.ogr2ogr))
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "ogr2ogr \(arguments.joined(separator: " ")) failed")
    }

    @Test("points and polygons with holes written by ogr2ogr read back", .enabled(if: ogr2ogr != nil), .timeLimit(.minutes(1)))
    func roundTrip() throws {
        let points = try InputTestSupport.write(
            """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "properties": {"name": "a", "n": 1}, "geometry": {"type": "Point", "coordinates": [7.5, 47.25]}},
              {"type": "Feature", "properties": {"name": "b", "n": 2}, "geometry": {"type": "Point", "coordinates": [8, 46]}}
            ]}
            """, extension: "geojson")
        let parks = try InputTestSupport.write(
            """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "properties": {"name": "park"}, "geometry": {"type": "Polygon", "coordinates": [
                [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]], [[2, 2], [2, 4], [4, 4], [4, 2], [2, 2]]]}}
            ]}
            """, extension: "geojson")
        let output = InputTestSupport.temporaryPath("gpkg")
        defer { for path in [points, parks, output] { try? FileManager.default.removeItem(atPath: path) } }
        try run(["-f", "GPKG", "-nln", "points", output, points])
        try run(["-f", "GPKG", "-update", "-nln", "parks", output, parks])

        var pointReader = try InputFile.open(path: output, options: InputOptions(geoPackage: GeoPackageOptions(table: "points")))
        let (pointEdits, pointProblems) = pointReader.readAll()
        #expect(pointProblems.isEmpty)
        #expect(pointEdits.map(\.feature.attributes) == [["name": "a", "n": 1], ["name": "b", "n": 2]])
        #expect(pointEdits.first?.feature.geometry == .point(x: 7.5, y: 47.25, spatialReference: SpatialReference(wkid: 4326)))

        #expect(throws: InputSetupError.self) { _ = try InputFile.open(path: output) }
        var parkReader = try InputFile.open(path: output, options: InputOptions(geoPackage: GeoPackageOptions(table: "parks")))
        let (parkEdits, parkProblems) = parkReader.readAll()
        #expect(parkProblems.isEmpty)
        let rings = try #require(InputTestSupport.rings(parkEdits.first?.feature.geometry))
        #expect(rings.count == 2)
        #expect(SimpleGeometry.signedDoubleArea(rings[0]) < 0)
        #expect(SimpleGeometry.signedDoubleArea(rings[1]) > 0)
    }
}
