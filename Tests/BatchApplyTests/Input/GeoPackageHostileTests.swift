import BatchApply
import FeatureModel
import Foundation
import GRDB
import Testing

/// GeoPackages that used to apply "0 of 0", fail on SQL or lose a bad point silently (issue 32, item 7).
@Suite struct GeoPackageHostileTests {
    @Test("a GeoPackage point with one NaN or infinite coordinate, or NaN not flagged empty, is a problem; a flagged empty point has no geometry")
    func nanPoints() throws {
        func point(_ x: Double, _ y: Double) -> [UInt8] {
            var builder = WKBBuilder(littleEndian: true)
            builder.header(1)
            builder.double(x)
            builder.double(y)
            return builder.bytes
        }
        let path = InputTestSupport.temporaryPath("gpkg")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let blobs = [
            WKBBuilder.geoPackage(point(.nan, 5), envelope: 0), WKBBuilder.geoPackage(point(.infinity, 5), envelope: 0),
            WKBBuilder.geoPackage(point(.nan, .nan), envelope: 0), WKBBuilder.geoPackage(point(.nan, .nan), envelope: 0, empty: true),
            WKBBuilder.geoPackage(point(1, 2), envelope: 0),
        ]
        try GeoPackageFixture.create(at: path) { db in
            try db.execute(
                sql: """
                    CREATE TABLE pts (fid INTEGER PRIMARY KEY, geom POINT, name TEXT);
                    INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES ('pts', 'features', 'pts', 4326);
                    INSERT INTO gpkg_geometry_columns VALUES ('pts', 'geom', 'POINT', 4326, 0, 0);
                    """)
            for (index, blob) in blobs.enumerated() {
                try db.execute(sql: "INSERT INTO pts (geom, name) VALUES (?, ?)", arguments: [Data(blob), "p\(index)"])
            }
        }
        var reader = try GeoPackageReader(path: path)
        let (edits, problems) = reader.readAll()
        #expect(edits.map(\.feature.attributes["name"]) == ["p3", "p4"])
        #expect(edits.first?.feature.geometry == nil)
        try #require(problems.map(\.position.index) == [0, 1, 2])
        #expect(problems[0].reason.contains("not a finite number") && problems[1].reason.contains("not a finite number"), "\(problems)")
        #expect(problems[2].reason.contains("does not mark it empty"), "\(problems)")
    }

    @Test("a GeoPackage table whose name holds a double quote is read")
    func quotedTableName() throws {
        let path = InputTestSupport.temporaryPath("gpkg")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let name = "my \"best\" parks"
        try GeoPackageFixture.create(at: path) { db in
            try db.execute(
                sql: """
                    CREATE TABLE "my ""best"" parks" (fid INTEGER PRIMARY KEY, geom POLYGON, name TEXT);
                    INSERT INTO "my ""best"" parks" (geom, name) VALUES (?, 'a');
                    INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES (?, 'features', ?, 100);
                    INSERT INTO gpkg_geometry_columns VALUES (?, 'geom', 'POLYGON', 100, 0, 0);
                    """, arguments: [GeoPackageFixture.squareBlob(), name, name, name])
        }
        for table in [nil, name] {
            var reader = try GeoPackageReader(path: path, options: InputOptions(geoPackage: GeoPackageOptions(table: table)))
            let (edits, problems) = reader.readAll()
            #expect(problems.isEmpty && edits.map(\.feature.attributes["name"]) == ["a"], "\(problems)")
        }
    }

    @Test("a GeoPackage feature table that is a view is read row by row, across pages")
    func view() throws {
        let path = InputTestSupport.temporaryPath("gpkg")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try GeoPackageFixture.create(at: path) { db in
            try db.execute(sql: "CREATE TABLE parks_data (fid INTEGER PRIMARY KEY, geom POLYGON, name TEXT)")
            for index in 1...5 {
                try db.execute(
                    sql: "INSERT INTO parks_data (geom, name) VALUES (?, ?)", arguments: [GeoPackageFixture.squareBlob(), "park \(index)"])
            }
            try db.execute(
                sql: """
                    CREATE VIEW parks AS SELECT fid, geom, name FROM parks_data WHERE fid <> 3;
                    INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES ('parks', 'features', 'parks', 100);
                    INSERT INTO gpkg_geometry_columns VALUES ('parks', 'geom', 'POLYGON', 100, 0, 0);
                    """)
        }
        var reader = try GeoPackageReader(path: path, options: InputOptions(geoPackage: GeoPackageOptions(pageSize: 2)))
        let (edits, problems) = reader.readAll()
        #expect(problems.isEmpty, "\(problems)")
        #expect(edits.map(\.feature.attributes["name"]) == ["park 1", "park 2", "park 4", "park 5"])
        #expect(edits.map(\.position.index) == [0, 1, 2, 3])
        #expect(edits.allSatisfy { InputTestSupport.rings($0.feature.geometry) != nil })
    }
}
