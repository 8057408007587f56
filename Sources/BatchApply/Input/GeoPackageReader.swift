import FeatureModel
import Foundation
import GRDB

/// Reads one table (or view) of a GeoPackage (OGC 12-128r18), opened read-only, row by row in rowid order (a
/// view's in its query's order), a page of rows per query: columns become attributes (TEXT dates stay strings for
/// ``FieldCoercion``), the geometry column's GeoPackage binary becomes Esri JSON in the table's coordinate system.
/// Rows are adds unless ``InputOptions/kindField`` names a column.
///
/// A record's `source` is a one-line Esri JSON rendering of the feature: rejects cannot be written back as rows,
/// so they are written as Esri JSON lines, which ``GeoJSONSeqReader`` reads again. BLOB columns other than the
/// geometry are left out and named in ``skippedColumns``. Blocks on SQLite I/O.
package struct GeoPackageReader: EditReader {
    /// The table read.
    package let table: GeoPackageTable
    /// Columns that are not read: BLOB columns other than the geometry, which no layer field takes from a file.
    package let skippedColumns: [String]

    /// A sentence naming the skipped columns, when there are any.
    package var notes: [String] {
        guard !skippedColumns.isEmpty else { return [] }
        let names = skippedColumns.map { "'\($0)'" }.joined(separator: ", ")
        return [
            "table \(table.name): BLOB column\(skippedColumns.count == 1 ? "" : "s") \(names) not read; no layer field takes binary data from a file"
        ]
    }
    private let queue: DatabaseQueue
    private let columns: [String]
    private let kindField: String?
    private let pageSize: Int
    private let spatialReference: SpatialReference?
    private var page: [Row] = []
    private var pageIndex = 0
    private var lastRowID: Int64?
    /// Whether the table is a view: views have no rowid (it reads as NULL), so they are paged by offset.
    private let isView: Bool
    private var rowsRead = 0
    private var index = 0
    private var finished = false

    /// A reader of the GeoPackage at `path`.
    /// - Throws: ``InputSetupError`` when the file cannot be opened as a GeoPackage, or the table cannot be chosen
    ///   (the message lists the tables).
    package init(path: String, options: InputOptions = InputOptions()) throws {
        var configuration = Configuration()
        configuration.readonly = true
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw InputSetupError("cannot open \(path) as a GeoPackage: \(error)")
        }
        let tables: [GeoPackageTable]
        do { tables = try queue.read { db in try GeoPackageTable.list(db) } } catch let error as InputSetupError {
            throw InputSetupError("\(path): \(error.reason)")
        } catch {
            throw InputSetupError("cannot read \(path) as a GeoPackage: \(error)")
        }
        let table = try GeoPackageTable.choose(options.geoPackage.table, among: tables)
        self.table = table
        // The name is bound, not quoted into the SQL: a table name may hold any character, a double quote included.
        let (info, type) = try queue.read { db in
            (
                try Row.fetchAll(db, sql: "SELECT name, type, pk FROM pragma_table_xinfo(?) WHERE hidden <> 1 ORDER BY cid", arguments: [table.name]),
                try String.fetchOne(db, sql: "SELECT type FROM sqlite_master WHERE name = ? COLLATE NOCASE", arguments: [table.name])
            )
        }
        isView = type == "view"
        var columns: [String] = []
        var skipped: [String] = []
        for column in info {
            let (name, type, primaryKeyIndex): (String, String, Int) = (column[0], column[1], column[2])
            if name == table.geometryColumn { continue }
            if primaryKeyIndex > 0 && type.uppercased() == "INTEGER" && !options.geoPackage.keepPrimaryKey { continue }
            if type.uppercased().hasPrefix("BLOB") {
                skipped.append(name)
                continue
            }
            columns.append(name)
        }
        self.columns = columns
        skippedColumns = skipped
        kindField = options.kindField
        pageSize = options.geoPackage.pageSize
        spatialReference = table.wkid.map { SpatialReference(wkid: $0) }
        if table.geometryColumn != nil, table.wkid == nil, let srsID = table.srsID, srsID > 0 {
            throw InputSetupError("table \(table.name): srs_id \(srsID) has no EPSG or ESRI code in gpkg_spatial_ref_sys")
        }
    }

    package mutating func next() -> Result<InputEdit, InputProblem>? {
        guard !finished else { return nil }
        if pageIndex >= page.count {
            do { try fetchPage() } catch {
                finished = true
                return .failure(InputProblem(position: InputPosition(index: index, table: table.name), reason: "cannot read the table: \(error)"))
            }
            if page.isEmpty {
                finished = true
                return nil
            }
        }
        let row = page[pageIndex]
        pageIndex += 1
        let position = InputPosition(index: index, table: table.name)
        index += 1
        return decode(row, position: position)
    }

    private static func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    private mutating func fetchPage() throws {
        var selected = [isView ? "NULL" : "_rowid_"] + columns.map(Self.quoted)
        if let geometry = table.geometryColumn { selected.append(Self.quoted(geometry)) }
        let from = "SELECT \(selected.joined(separator: ", ")) FROM \(Self.quoted(table.name))"
        let limit = pageSize
        if isView {
            // A view's rows come in the order of its query, the same on every read of the same file.
            let offset = rowsRead
            page = try queue.read { db in try Row.fetchAll(db, sql: from + " LIMIT ? OFFSET ?", arguments: [limit, offset]) }
        } else {
            let after = lastRowID ?? Int64.min
            page = try queue.read { db in try Row.fetchAll(db, sql: from + " WHERE _rowid_ > ? ORDER BY _rowid_ LIMIT ?", arguments: [after, limit]) }
        }
        pageIndex = 0
        rowsRead += page.count
        if !isView, let last = page.last { lastRowID = last[0] }
    }

    private func decode(_ row: Row, position: InputPosition) -> Result<InputEdit, InputProblem> {
        var attributes: [String: JSONValue] = [:]
        var problems: [String] = []
        for (offset, name) in columns.enumerated() {
            let value: DatabaseValue = row[offset + 1]
            switch value.storage {
            case .null: attributes[name] = .null
            case .int64(let number): attributes[name] = .int(number)
            case .double(let number): attributes[name] = .double(number)
            case .string(let text): attributes[name] = .string(text)
            case .blob: problems.append("column '\(name)' holds binary data, which no layer field takes")
            }
        }
        var feature = Feature(attributes: attributes)
        func problem(_ reason: String) -> Result<InputEdit, InputProblem> {
            .failure(InputProblem(position: position, reason: reason, source: Self.line(feature)))
        }
        if let first = problems.first { return problem(first) }
        let kind: InputEdit.Kind
        do throws(RecordError) { kind = try EditKindField.take(from: &feature.attributes, field: kindField) } catch { return problem(error.reason) }
        if let column = table.geometryColumn {
            let value: DatabaseValue = row[columns.count + 1]
            switch value.storage {
            case .null: break
            case .blob(let data):
                do {
                    let (geometry, _) = try WKBParser.parseGeoPackage([UInt8](data))
                    feature.geometry = try geometry.esriGeometry(spatialReference: spatialReference)
                } catch {
                    return problem("geometry column '\(column)': \(error.reason)")
                }
            default: return problem("geometry column '\(column)' does not hold a GeoPackage geometry blob")
            }
        }
        return .success(InputEdit(kind: kind, feature: feature, position: position, source: Self.line(feature)))
    }

    /// The feature as one line of Esri JSON.
    static func line(_ feature: Feature) -> String {
        var writer = JSONWriter()
        writer.write(feature)
        return writer.string
    }
}
