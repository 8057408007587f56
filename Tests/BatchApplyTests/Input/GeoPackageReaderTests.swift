import BatchApply
import FeatureModel
import Foundation
import GRDB
import Testing

/// GeoPackages built for the tests with GRDB: the minimal `gpkg_*` tables of OGC 12-128r18 and a few tables.
enum GeoPackageFixture {
    static func create(at path: String, _ body: (Database) throws -> Void) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(
                sql: """
                    PRAGMA application_id = 1196444487;
                    CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY, organization TEXT NOT NULL,
                      organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
                    INSERT INTO gpkg_spatial_ref_sys VALUES ('WGS 84', 4326, 'EPSG', 4326, 'GEOGCS[...]', NULL);
                    INSERT INTO gpkg_spatial_ref_sys VALUES ('Pseudo-Mercator', 100, 'epsg', 3857, 'PROJCS[...]', NULL);
                    CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE,
                      description TEXT DEFAULT '', last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
                      min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER);
                    CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL,
                      srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL, PRIMARY KEY (table_name, column_name));
                    """)
            try body(db)
        }
    }

    static func addFeatureTable(_ db: Database, name: String, srsID: Int) throws {
        try db.execute(
            sql: """
                CREATE TABLE "\(name)" (fid INTEGER PRIMARY KEY AUTOINCREMENT, geom POLYGON, name TEXT, visits INTEGER, area REAL, opened DATE, photo BLOB);
                INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES (?, 'features', ?, ?);
                INSERT INTO gpkg_geometry_columns VALUES (?, 'geom', 'POLYGON', ?, 0, 0);
                """, arguments: [name, name, srsID, name, srsID])
    }

    /// A counter-clockwise square, as GeoPackage writers usually store exteriors.
    static let square: [[Double]] = [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]

    static func squareBlob(envelope: UInt8 = 1) -> Data {
        Data(WKBBuilder.geoPackage(WKBBuilder.polygon([square], littleEndian: true), srsID: 100, envelope: envelope))
    }
}

@Suite struct GeoPackageReaderTests {
    private func makeParks() throws -> String {
        let path = InputTestSupport.temporaryPath("gpkg")
        try GeoPackageFixture.create(at: path) { db in
            try GeoPackageFixture.addFeatureTable(db, name: "parks", srsID: 100)
            try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
            try db.execute(sql: "INSERT INTO gpkg_contents (table_name, data_type, identifier) VALUES ('notes', 'attributes', 'notes')")
            try db.execute(sql: "INSERT INTO notes (body) VALUES ('hello')")
            for index in 1...5 {
                let geometry: (any DatabaseValueConvertible)? =
                    index == 4 ? Data([1, 2, 3]) : (index == 5 ? nil : GeoPackageFixture.squareBlob(envelope: UInt8(index % 5)))
                try db.execute(
                    sql: "INSERT INTO parks (geom, name, visits, area, opened, photo) VALUES (?, ?, ?, ?, ?, ?)",
                    arguments: [geometry, "park \(index)", index * 10, Double(index) + 0.5, "2024-05-0\(index)", Data([0xFF])])
            }
        }
        return path
    }

    @Test("the only feature table is read in pages, in rowid order, with geometry in the table's wkid")
    func readsFeatureTable() throws {
        let path = try makeParks()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var reader = try GeoPackageReader(path: path, options: InputOptions(geoPackage: GeoPackageOptions(pageSize: 2)))
        #expect(reader.table.name == "parks")
        #expect(reader.table.wkid == 3857)
        #expect(reader.skippedColumns == ["photo"])
        #expect(reader.notes == ["table parks: BLOB column 'photo' not read; no layer field takes binary data from a file"])
        let (edits, problems) = reader.readAll()
        #expect(edits.map(\.feature.attributes["name"]) == ["park 1", "park 2", "park 3", "park 5"])
        #expect(edits[0].feature.attributes == ["name": "park 1", "visits": 10, "area": 1.5, "opened": "2024-05-01"])
        let rings = try #require(InputTestSupport.rings(edits[0].feature.geometry))
        #expect(SimpleGeometry.signedDoubleArea(rings[0]) < 0)
        #expect(InputTestSupport.spatialReference(edits[0].feature.geometry) == SpatialReference(wkid: 3857))
        #expect(edits[3].feature.geometry == nil)
        #expect(edits.map(\.position.index) == [0, 1, 2, 4])
        #expect(edits.allSatisfy { $0.position.table == "parks" && $0.kind == .add })
        let source = try WireJSON.decode(Feature.self, from: edits[0].source)
        #expect(source == edits[0].feature)
        #expect(!edits[0].source.contains("\n"))
        #expect(problems.map(\.position.index) == [3])
        #expect(problems.first?.reason.contains("geometry column 'geom'") == true)
    }

    @Test("the primary key is an attribute on request, and an attribute table is read by name")
    func options() throws {
        let path = try makeParks()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var keyed = try GeoPackageReader(path: path, options: InputOptions(geoPackage: GeoPackageOptions(keepPrimaryKey: true)))
        #expect(keyed.next()?.success?.feature.attributes["fid"] == 1)
        var notes = try GeoPackageReader(path: path, options: InputOptions(geoPackage: GeoPackageOptions(table: "NOTES")))
        let (edits, _) = notes.readAll()
        #expect(edits.map(\.feature) == [Feature(attributes: ["body": "hello"])])
    }

    @Test("with two feature tables and none named, the error lists the tables")
    func twoTables() throws {
        let path = InputTestSupport.temporaryPath("gpkg")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try GeoPackageFixture.create(at: path) { db in
            try GeoPackageFixture.addFeatureTable(db, name: "a", srsID: 4326)
            try GeoPackageFixture.addFeatureTable(db, name: "b", srsID: 4326)
        }
        #expect {
            _ = try GeoPackageReader(path: path)
        } throws: { error in
            (error as? InputSetupError)?.reason.contains("a (features), b (features)") == true
        }
        #expect(throws: InputSetupError.self) {
            _ = try GeoPackageReader(path: path, options: InputOptions(geoPackage: GeoPackageOptions(table: "c")))
        }
        var b = try GeoPackageReader(path: path, options: InputOptions(geoPackage: GeoPackageOptions(table: "b")))
        #expect(b.next() == nil)
    }

    @Test("a SQLite file that is not a GeoPackage is refused")
    func notGeoPackage() throws {
        let path = InputTestSupport.temporaryPath("gpkg")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "CREATE TABLE t (a)") }
        #expect(throws: InputSetupError.self) { _ = try GeoPackageReader(path: path) }
    }
}
