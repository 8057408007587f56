/// Which GeoPackage table to read and how.
package struct GeoPackageOptions: Sendable, Hashable {
    /// The table to read; nil (the default) reads the only feature table (or the only attribute table when there
    /// are no feature tables).
    package var table: String?
    /// Whether the table's integer primary key column (GDAL's `fid`, ArcGIS's `OBJECTID`) becomes an attribute;
    /// default false, since it is the file's row number rather than a layer field. Turn it on when updates or
    /// deletes are keyed by it.
    package var keepPrimaryKey: Bool
    /// Rows fetched per query; default 1000.
    package var pageSize: Int

    /// Options with the given values.
    /// - Parameters:
    ///   - table: the table; default nil (the only feature table).
    ///   - keepPrimaryKey: whether the primary key column is an attribute; default false.
    ///   - pageSize: rows per query; default 1000.
    package init(table: String? = nil, keepPrimaryKey: Bool = false, pageSize: Int = 1000) {
        self.table = table
        self.keepPrimaryKey = keepPrimaryKey
        self.pageSize = max(1, pageSize)
    }
}
