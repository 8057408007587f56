import FeatureModel
import GRDB

/// Runs a ``LayerQuery`` on a read connection.
///
/// ```
/// SELECT <outFields> [, x, y] FROM layer_<id>
///  WHERE (<where>) [AND OBJECTID IN (SELECT value FROM json_each(?))]
///  ORDER BY <orderByFields>, OBJECTID LIMIT <limit + 1> OFFSET <offset>
/// ```
/// One extra row is read to tell whether more rows exist past the page (`exceededTransferLimit`).
enum QueryReader {
    /// The answer to `query` on `layer`.
    /// - Throws: `DatabaseError` when SQLite fails.
    static func run(_ query: LayerQuery, layer: LayerSchema, db: Database) throws -> QueryAnswer {
        var condition = query.filter.sql
        var arguments = query.filter.bindings
        if let objectIds = query.objectIds {
            condition = "(\(condition)) AND \(layer.column(layer.objectIdField)) IN (SELECT value FROM json_each(?))"
            arguments.append(.text("[" + objectIds.map(String.init).joined(separator: ",") + "]"))
        }
        var order = query.orderBy.map { "\(layer.column($0.field))\($0.descending ? " DESC" : "")" }
        if !query.orderBy.contains(where: { $0.field == layer.objectIdField }) { order.append(layer.column(layer.objectIdField)) }
        let orderSQL = order.joined(separator: ", ")

        switch query.output {
        case .count:
            let sql = "SELECT COUNT(*) FROM \(layer.table) WHERE \(condition)"
            let count = try Int.fetchOne(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments)) ?? 0
            return .count(count)
        case .objectIds:
            let sql = "SELECT \(layer.column(layer.objectIdField)) FROM \(layer.table) WHERE \(condition) ORDER BY \(orderSQL)"
            return .objectIds(try Int64.fetchAll(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments)))
        case .features(let offset, let limit):
            var columns = query.outFields.map { layer.column($0) }
            let geometryColumn = columns.count
            let withGeometry = query.returnGeometry && layer.geometry != .none
            if withGeometry {
                switch layer.geometry {
                case .point: columns += [LayerSchema.xColumn, LayerSchema.yColumn]
                default: columns.append(LayerSchema.jsonColumn)
                }
            }
            if columns.isEmpty { columns.append("NULL") }
            let sql = "SELECT \(columns.joined(separator: ", ")) FROM \(layer.table) WHERE \(condition) ORDER BY \(orderSQL) LIMIT ? OFFSET ?"
            arguments += [.integer(Int64(limit) + 1), .integer(Int64(offset))]
            let fields = query.outFields.map { layer.fields[$0] }
            var features: [Feature] = []
            features.reserveCapacity(min(limit, 2_000))
            var exceeded = false
            let cursor = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments))
            while let row = try cursor.next() {
                if features.count == limit {
                    exceeded = true
                    break
                }
                var attributes: [String: JSONValue] = [:]
                attributes.reserveCapacity(fields.count)
                for (index, field) in fields.enumerated() {
                    attributes[field.name] = jsonValue(row[index] as DatabaseValue, type: field.type)
                }
                var geometry: Geometry?
                if withGeometry { geometry = readGeometry(row, at: geometryColumn, storage: layer.geometry) }
                features.append(Feature(attributes: attributes, geometry: geometry))
            }
            return .features(features, exceededTransferLimit: exceeded)
        }
    }

    private static func readGeometry(_ row: Row, at column: Int, storage: LayerSchema.GeometryStorage) -> Geometry? {
        switch storage {
        case .none: return nil
        case .point:
            guard let x = row[column] as Double?, let y = row[column + 1] as Double? else { return nil }
            return .point(x: x, y: y)
        case .json:
            guard let text = row[column] as String? else { return nil }
            return try? WireJSON.decode(Geometry.self, from: text)
        }
    }

    /// The wire value of a stored value in a field of `type`.
    static func jsonValue(_ value: DatabaseValue, type: FieldType) -> JSONValue {
        switch value.storage {
        case .null: return .null
        case .int64(let integer):
            return type == .double || type == .single ? .double(Double(integer)) : .int(integer)
        case .double(let double):
            if type.isInteger || type == .date, let integer = JSONValue.double(double).intValue { return .int(integer) }
            return .double(double)
        case .string(let text): return .string(text)
        case .blob: return .null
        }
    }
}
