import Foundation
import GRDB

/// A table a GeoPackage lists in `gpkg_contents`, with its geometry column and coordinate system.
package struct GeoPackageTable: Sendable, Hashable, CustomStringConvertible {
    /// The table name.
    package var name: String
    /// `features` or `attributes`.
    var dataType: String
    /// The geometry column (`gpkg_geometry_columns`), for feature tables.
    package var geometryColumn: String?
    /// The `srs_id` of the geometry column.
    package var srsID: Int?
    /// The well-known ID of that coordinate system: its EPSG (or ESRI) code in `gpkg_spatial_ref_sys`.
    package var wkid: Int?

    package var description: String { "\(name) (\(dataType))" }

    /// The feature and attribute tables of the GeoPackage open in `db`, in name order.
    /// - Throws: ``InputSetupError`` when `gpkg_contents` is missing (not a GeoPackage), or the SQLite error.
    static func list(_ db: Database) throws -> [GeoPackageTable] {
        guard try db.tableExists("gpkg_contents") else {
            throw InputSetupError("not a GeoPackage: it has no gpkg_contents table")
        }
        var tables: [GeoPackageTable] = []
        let rows = try Row.fetchAll(
            db, sql: "SELECT table_name, data_type FROM gpkg_contents WHERE data_type IN ('features', 'attributes') ORDER BY table_name")
        let hasGeometryColumns = try db.tableExists("gpkg_geometry_columns")
        let hasSpatialRefSys = try db.tableExists("gpkg_spatial_ref_sys")
        for row in rows {
            var table = GeoPackageTable(name: row[0], dataType: row[1])
            if table.dataType == "features", hasGeometryColumns,
                let geometry = try Row.fetchOne(
                    db, sql: "SELECT column_name, srs_id FROM gpkg_geometry_columns WHERE table_name = ?", arguments: [table.name])
            {
                table.geometryColumn = geometry[0]
                table.srsID = geometry[1]
            }
            if let srsID = table.srsID, hasSpatialRefSys,
                let srs = try Row.fetchOne(
                    db, sql: "SELECT organization, organization_coordsys_id FROM gpkg_spatial_ref_sys WHERE srs_id = ?", arguments: [srsID])
            {
                let organization: String = (srs[0] as String?)?.uppercased() ?? ""
                if organization == "EPSG" || organization == "ESRI" { table.wkid = srs[1] }
            }
            tables.append(table)
        }
        return tables
    }

    /// The table `name` among `tables`, or the one to read by default: the only feature table, else the only
    /// attribute table.
    /// - Throws: ``InputSetupError`` listing the tables when `name` is not among them or no default exists.
    static func choose(_ name: String?, among tables: [GeoPackageTable]) throws(InputSetupError) -> GeoPackageTable {
        let listing = tables.isEmpty ? "it lists none in gpkg_contents" : "its tables are " + tables.map(\.description).joined(separator: ", ")
        if let name {
            if let table = tables.first(where: { $0.name == name }) ?? tables.first(where: { $0.name.lowercased() == name.lowercased() }) {
                return table
            }
            throw InputSetupError("the GeoPackage has no feature or attribute table '\(name)'; \(listing)")
        }
        let features = tables.filter { $0.dataType == "features" }
        if features.count == 1 { return features[0] }
        if features.isEmpty, tables.count == 1 { return tables[0] }
        throw InputSetupError("the GeoPackage has \(features.count) feature tables; name the one to read (\(listing))")
    }
}
