import FeatureModel
import GRDB

/// Runs a ``LayerQuery`` on a read connection.
///
/// ```
/// SELECT <outFields> [, x, y] FROM layer_<id>
///  WHERE (<where>) [AND OBJECTID IN (SELECT value FROM json_each(?))] [AND <SpatialFilter.condition>]
///  ORDER BY <orderByFields>, OBJECTID LIMIT <limit + 1> OFFSET <offset>
/// ```
/// One extra row is read to tell whether more rows exist past the page (`exceededTransferLimit`). Counts, ids,
/// extents, distinct values and statistics use the same `WHERE`. Every value is bound; the SQL text holds only
/// quoted column names from the schema.
enum QueryReader {
    /// The answer to `query` on `layer`.
    /// - Throws: `DatabaseError` when SQLite fails.
    static func run(_ query: LayerQuery, layer: LayerSchema, db: Database) throws -> QueryAnswer {
        try SpatialPredicate.registered(query.spatial, layer: layer, on: db) { try answer(query, layer: layer, db: db) }
    }

    private static func answer(_ query: LayerQuery, layer: LayerSchema, db: Database) throws -> QueryAnswer {
        let condition = self.condition(query, layer: layer)
        var order = query.orderBy.map { "\(layer.column($0.field))\($0.descending ? " DESC" : "")" }
        if !query.orderBy.contains(where: { $0.field == layer.objectIdField }) { order.append(layer.column(layer.objectIdField)) }
        let orderSQL = order.joined(separator: ", ")
        let arguments = condition.bindings

        switch query.output {
        case .count:
            let sql = "SELECT COUNT(*) FROM \(layer.table) WHERE \(condition.sql)"
            return .count(try Int.fetchOne(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments)) ?? 0)
        case .objectIds:
            let sql = "SELECT \(layer.column(layer.objectIdField)) FROM \(layer.table) WHERE \(condition.sql) ORDER BY \(orderSQL)"
            return .objectIds(try Int64.fetchAll(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments)))
        case .features(let offset, let limit, let dropExceeded):
            // Whether the tile holds too much is asked first, so no geometry is read for an answer with none.
            if dropExceeded {
                let sql = "SELECT 1 FROM \(layer.table) WHERE \(condition.sql) LIMIT 1 OFFSET ?"
                let beyond = arguments + [.integer(Int64(offset) + Int64(limit))]
                if try Int.fetchOne(db.cachedStatement(sql: sql), arguments: StatementArguments(beyond)) != nil {
                    return .features([], exceededTransferLimit: true)
                }
            }
            return try features(query, layer: layer, condition: condition, orderSQL: orderSQL, offset: offset, limit: limit, db: db)
        case .distinct(let offset, let limit):
            return try distinct(query, layer: layer, condition: condition, offset: offset, limit: limit, db: db)
        case .distinctCount:
            let columns = query.outFields.map { layer.column($0) }.joined(separator: ", ")
            let sql = "SELECT COUNT(*) FROM (SELECT DISTINCT \(columns) FROM \(layer.table) WHERE \(condition.sql))"
            return .count(try Int.fetchOne(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments)) ?? 0)
        case .extent(let withCount):
            return try extent(query, layer: layer, condition: condition, withCount: withCount, db: db)
        case .statistics(let statistics):
            return try self.statistics(statistics, layer: layer, condition: condition, db: db)
        }
    }

    /// The `WHERE` condition shared by every output form.
    static func condition(_ query: LayerQuery, layer: LayerSchema) -> SQLFragment {
        var condition = query.filter
        if let objectIds = query.objectIds {
            condition.sql = "(\(condition.sql)) AND \(layer.column(layer.objectIdField)) IN (SELECT value FROM json_each(?))"
            condition.bindings.append(.text("[" + objectIds.map(String.init).joined(separator: ",") + "]"))
        }
        if let spatial = query.spatial?.condition(layer) {
            condition.sql = "(\(condition.sql)) AND \(spatial.sql)"
            condition.bindings += spatial.bindings
        }
        return condition
    }

    private static func features(
        _ query: LayerQuery, layer: LayerSchema, condition: SQLFragment, orderSQL: String, offset: Int, limit: Int, db: Database
    ) throws -> QueryAnswer {
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
        let sql =
            "SELECT \(columns.joined(separator: ", ")) FROM \(layer.table) WHERE \(condition.sql) ORDER BY \(orderSQL) LIMIT ? OFFSET ?"
        let arguments = condition.bindings + [.integer(Int64(limit) + 1), .integer(Int64(offset))]
        let fields = query.outFields.map { layer.fields[$0] }
        let generalizer = query.geometryOutput.generalizationOffset.map(Generalizer.init(offset:))
        var features: [Feature] = []
        features.reserveCapacity(min(limit, 2_000))
        var exceeded = false
        let cursor = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments))
        while let row = try cursor.next() {
            if features.count == limit {
                exceeded = true
                break
            }
            var geometry: Geometry?
            if withGeometry {
                geometry = readGeometry(row, at: geometryColumn, storage: layer.geometry, output: query.geometryOutput, generalizer: generalizer)
            }
            features.append(Feature(attributes: attributes(row, fields: fields), geometry: geometry))
        }
        return .features(features, exceededTransferLimit: exceeded)
    }

    private static func distinct(
        _ query: LayerQuery, layer: LayerSchema, condition: SQLFragment, offset: Int, limit: Int, db: Database
    ) throws -> QueryAnswer {
        let columns = query.outFields.map { layer.column($0) }
        var order = query.orderBy.map { "\(layer.column($0.field))\($0.descending ? " DESC" : "")" }
        for index in query.outFields where !query.orderBy.contains(where: { $0.field == index }) { order.append(layer.column(index)) }
        let sql = """
            SELECT DISTINCT \(columns.joined(separator: ", ")) FROM \(layer.table) WHERE \(condition.sql) \
            ORDER BY \(order.joined(separator: ", ")) LIMIT ? OFFSET ?
            """
        let arguments = condition.bindings + [.integer(Int64(limit) + 1), .integer(Int64(offset))]
        let fields = query.outFields.map { layer.fields[$0] }
        var features: [Feature] = []
        var exceeded = false
        let cursor = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments))
        while let row = try cursor.next() {
            if features.count == limit {
                exceeded = true
                break
            }
            features.append(Feature(attributes: attributes(row, fields: fields)))
        }
        return .features(features, exceededTransferLimit: exceeded)
    }

    /// The attributes of `row`, whose first columns hold `fields` in order.
    static func attributes(_ row: Row, fields: [Field]) -> [String: JSONValue] {
        var attributes: [String: JSONValue] = [:]
        attributes.reserveCapacity(fields.count)
        for (index, field) in fields.enumerated() {
            attributes[field.name] = jsonValue(row[index] as DatabaseValue, type: field.type)
        }
        return attributes
    }

    /// The answered geometry of a row; nil when it has none. A stored coordinate outside WGS 84 (written before
    /// edits were checked, or by another program) answers as no geometry, so one bad row never fails a whole query.
    static func readGeometry(
        _ row: Row, at column: Int, storage: LayerSchema.GeometryStorage, output: GeometryOutput, generalizer: Generalizer? = nil
    ) -> Geometry? {
        switch storage {
        case .none: return nil
        case .point:
            guard let x = row[column] as Double?, let y = row[column + 1] as Double?, GeometryCoercion.isGeographic(x: x, y: y) else { return nil }
            return output.point(x: x, y: y)
        case .json:
            guard let text = row[column] as String?, let geometry = try? WireJSON.decode(Geometry.self, from: text) else { return nil }
            return geometry.allCoordinates(GeometryCoercion.isGeographic) ? output.transform(geometry, generalizer: generalizer) : nil
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
