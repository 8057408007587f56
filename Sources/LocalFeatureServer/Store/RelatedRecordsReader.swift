import FeatureModel
import GRDB

/// A checked queryRelatedRecords request, ready for the store.
struct RelatedRecordsQuery: Sendable, Hashable {
    /// What the query answers with.
    enum Output: Sendable, Hashable {
        /// Related rows, `offset` skipped, at most `limit` (over all groups, in source order).
        case records(offset: Int, limit: Int)
        /// The number of related rows per source feature.
        case count
    }

    var relationshipId: Int
    /// The source features' object IDs.
    var objectIds: [Int64]
    /// The compiled `definitionExpression`, on the related layer.
    var filter: SQLFragment
    /// Indexes into the related layer's ``LayerSchema/fields``.
    var outFields: [Int]
    var returnGeometry: Bool
    /// Order of the related rows within a group; the related object ID breaks ties.
    var orderBy: [LayerQuery.OrderTerm]
    var output: Output
}

/// The store's answer to a ``RelatedRecordsQuery``: rows per source object ID, in source order.
enum RelatedRecordsAnswer: Sendable {
    case records([(objectId: Int64, feature: Feature)], exceededTransferLimit: Bool)
    case counts([(objectId: Int64, count: Int)])
}

/// How the rows of one layer reach the rows of another through a relationship, in either direction.
///
/// Simple and composite relationships join the source's key to the related layer's key (primary key on the
/// origin side, foreign key on the destination side). Many-to-many relationships go through the relationship
/// table: source key → link column → link column → related key.
struct RelationshipPath: Sendable {
    /// The related layer's id.
    var related: Int
    var sourceKey: String
    var relatedKey: String
    /// The relationship table and its columns for the source and the related side (many-to-many only).
    var link: (table: String, sourceColumn: String, relatedColumn: String)?

    /// The path of relationship `relationshipId` from `source`.
    /// - Throws: ``ServiceError`` (400) when the layer has no such relationship or its other side is missing.
    static func resolve(_ relationshipId: Int, from source: LayerSchema, schemas: [Int: LayerSchema]) throws(ServiceError) -> RelationshipPath {
        guard let sourceSide = source.info.relationship(id: relationshipId) else {
            throw ServiceError.invalidParameter("relationshipId", reason: "layer \(source.info.id) has no relationship \(relationshipId)")
        }
        guard let related = schemas[sourceSide.relatedTableId], let relatedSide = related.info.relationship(id: relationshipId) else {
            throw ServiceError.invalidParameter("relationshipId", reason: "relationship \(relationshipId) has no related layer")
        }
        var path = RelationshipPath(
            related: related.info.id, sourceKey: SQLFragment.quoted(sourceSide.keyField), relatedKey: SQLFragment.quoted(relatedSide.keyField))
        if sourceSide.cardinality == .manyToMany {
            guard let tableId = sourceSide.relationshipTableId, let table = schemas[tableId],
                let sourceColumn = sourceSide.keyFieldInRelationshipTable, let relatedColumn = relatedSide.keyFieldInRelationshipTable
            else {
                throw ServiceError.invalidParameter("relationshipId", reason: "relationship \(relationshipId) has no relationship table")
            }
            path.link = (table.table, SQLFragment.quoted(sourceColumn), SQLFragment.quoted(relatedColumn))
        }
        return path
    }
}

/// Runs a ``RelatedRecordsQuery`` on a read connection.
///
/// ```
/// SELECT k.__source_oid, r.<outFields> [, r.x, r.y] FROM layer_<related> AS r
///   JOIN (SELECT s.OBJECTID AS __source_oid, s.<key> AS __source_key FROM layer_<source> AS s
///          [JOIN layer_<link> AS l ON l.<sourceColumn> = s.<key>]      -- many-to-many: __source_key = l.<relatedColumn>
///          WHERE s.OBJECTID IN (<objectIds>)) AS k ON r.<relatedKey> = k.__source_key
///  WHERE (<definitionExpression>) ORDER BY k.__source_oid, <orderByFields>, r.OBJECTID LIMIT … OFFSET …
/// ```
/// The definition expression compiles to unqualified column names, which can only mean the related layer's
/// columns: the joined subquery exposes nothing but `__source_oid` and `__source_key`.
enum RelatedRecordsReader {
    static func run(
        _ query: RelatedRecordsQuery, source: LayerSchema, path: RelationshipPath, related: LayerSchema, db: Database
    ) throws
        -> RelatedRecordsAnswer
    {
        let sourceOid = "s.\(source.column(source.objectIdField))"
        var keys = "SELECT \(sourceOid) AS \"__source_oid\", "
        if let link = path.link {
            keys +=
                "l.\(link.relatedColumn) AS \"__source_key\" FROM \(source.table) AS s JOIN \(link.table) AS l ON l.\(link.sourceColumn) = s.\(path.sourceKey)"
        } else {
            keys += "s.\(path.sourceKey) AS \"__source_key\" FROM \(source.table) AS s"
        }
        keys += " WHERE \(sourceOid) IN (SELECT value FROM json_each(?))"
        var arguments: [SQLValue] = [.text("[" + query.objectIds.map(String.init).joined(separator: ",") + "]")]
        let from = "FROM \(related.table) AS r JOIN (\(keys)) AS k ON r.\(path.relatedKey) = k.\"__source_key\" WHERE (\(query.filter.sql))"
        arguments += query.filter.bindings

        switch query.output {
        case .count:
            let sql = "SELECT k.\"__source_oid\", COUNT(*) \(from) GROUP BY k.\"__source_oid\" ORDER BY k.\"__source_oid\""
            let rows = try Row.fetchAll(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments))
            return .counts(rows.map { (objectId: $0[0], count: $0[1]) })
        case .records(let offset, let limit):
            var columns = query.outFields.map { "r.\(related.column($0))" }
            let withGeometry = query.returnGeometry && related.geometry != .none
            let geometryColumn = columns.count + 1
            if withGeometry {
                columns += related.geometry == .point ? ["r.\(LayerSchema.xColumn)", "r.\(LayerSchema.yColumn)"] : ["r.\(LayerSchema.jsonColumn)"]
            }
            var order = ["k.\"__source_oid\""] + query.orderBy.map { "r.\(related.column($0.field))\($0.descending ? " DESC" : "")" }
            order.append("r.\(related.column(related.objectIdField))")
            let sql =
                "SELECT k.\"__source_oid\", \(columns.isEmpty ? "NULL" : columns.joined(separator: ", ")) \(from) ORDER BY \(order.joined(separator: ", ")) LIMIT ? OFFSET ?"
            arguments += [.integer(Int64(limit) + 1), .integer(Int64(offset))]
            let fields = query.outFields.map { related.fields[$0] }
            var records: [(objectId: Int64, feature: Feature)] = []
            var exceeded = false
            let cursor = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments))
            while let row = try cursor.next() {
                if records.count == limit {
                    exceeded = true
                    break
                }
                var attributes: [String: JSONValue] = [:]
                for (index, field) in fields.enumerated() {
                    attributes[field.name] = QueryReader.jsonValue(row[index + 1] as DatabaseValue, type: field.type)
                }
                var geometry: Geometry?
                if withGeometry {
                    if related.geometry == .point {
                        if let x = row[geometryColumn] as Double?, let y = row[geometryColumn + 1] as Double? { geometry = .point(x: x, y: y) }
                    } else if let text = row[geometryColumn] as String? {
                        geometry = try? WireJSON.decode(Geometry.self, from: text)
                    }
                }
                records.append((objectId: row[0], feature: Feature(attributes: attributes, geometry: geometry)))
            }
            return .records(records, exceededTransferLimit: exceeded)
        }
    }
}
