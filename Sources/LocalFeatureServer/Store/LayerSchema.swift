import FeatureModel

/// How one layer or table is laid out in SQLite, with the SQL the store reuses for it.
///
/// Table `layer_<id>`: `OBJECTID INTEGER PRIMARY KEY AUTOINCREMENT` (object IDs are never reused), one column
/// per field (same name), and for point layers the geometry as `__shape_x`/`__shape_y` (WGS 84); other geometry
/// types are stored as JSON text in `__shape`, with an R*Tree of their bounds (``ShapeIndex``). GlobalID has a
/// unique index; relationship foreign keys an index.
struct LayerSchema: Sendable {
    /// How geometry is stored.
    enum GeometryStorage: Sendable, Hashable {
        case none
        case point
        case json
    }

    /// What deleting a row of this layer does to related rows (arcgis-rest.md §8; cardinality is never enforced).
    ///
    /// - composite relationship, this layer the origin: the related destination rows are deleted (recursively);
    /// - simple relationship, this layer the origin: the destination's foreign key is set to null;
    /// - many-to-many, either side: the row's links in the relationship table are deleted.
    struct DeleteRule: Sendable, Hashable {
        enum Action: Sendable, Hashable {
            case delete
            case setNull
        }

        /// The key field in this layer (index into ``LayerSchema/fields``).
        var keyField: Int
        var targetLayerId: Int
        /// The quoted column in the target that holds the key.
        var targetColumn: String
        var action: Action
    }

    let info: LayerInfo
    /// The quoted table name.
    let table: String
    /// Storable fields (everything but `esriFieldTypeGeometry`), in metadata order.
    let fields: [Field]
    let objectIdField: Int
    let globalIdField: Int?
    let geometry: GeometryStorage
    /// What a delete does to related rows, in order.
    let deleteRules: [DeleteRule]
    /// Link-table columns of many-to-many relationships whose relationship table is this layer (indexed).
    private let linkColumns: [String]
    /// Fields written by an insert: all but the object ID, in order; geometry columns follow them.
    let insertFields: [Int]
    /// The insert statement for ``insertFields`` plus geometry columns.
    let insertSQL: String
    /// `OBJECTID`, `GlobalID` (or NULL) and the key fields of ``deleteRules``, for `RETURNING` clauses.
    let returningSQL: String

    private let exactNames: [String: Int]
    private let lowercasedNames: [String: Int]

    static let xColumn = "\"__shape_x\""
    static let yColumn = "\"__shape_y\""
    static let jsonColumn = "\"__shape\""

    /// The schema of `info`, with relationship delete rules resolved against the other layers of its service.
    init(info: LayerInfo, serviceLayers: [LayerInfo]) {
        self.info = info
        table = SQLFragment.quoted("layer_\(info.id)")
        let fields = info.fields.filter { $0.type != .geometry }
        self.fields = fields
        var exact: [String: Int] = [:]
        var lowercased: [String: Int] = [:]
        for (index, field) in fields.enumerated() {
            exact[field.name] = index
            lowercased[field.name.lowercased()] = index
        }
        exactNames = exact
        lowercasedNames = lowercased
        let objectIdField = lowercased[info.objectIdField.lowercased()] ?? fields.firstIndex { $0.type == .oid } ?? 0
        self.objectIdField = objectIdField
        let globalIdField = info.globalIdField.flatMap { lowercased[$0.lowercased()] } ?? fields.firstIndex { $0.type == .globalID }
        self.globalIdField = globalIdField
        switch info.geometryType {
        case nil: geometry = .none
        case .point: geometry = .point
        default: geometry = .json
        }

        var rules: [DeleteRule] = []
        for relationship in info.relationships ?? [] {
            guard let keyField = lowercased[relationship.keyField.lowercased()] else { continue }
            if relationship.cardinality == .manyToMany {
                guard let tableId = relationship.relationshipTableId, let column = relationship.keyFieldInRelationshipTable,
                    serviceLayers.contains(where: { $0.id == tableId })
                else { continue }
                rules.append(DeleteRule(keyField: keyField, targetLayerId: tableId, targetColumn: SQLFragment.quoted(column), action: .delete))
            } else if relationship.role == .origin {
                guard let destination = serviceLayers.first(where: { $0.id == relationship.relatedTableId }),
                    let destinationSide = destination.relationships?.first(where: { $0.id == relationship.id && $0.role == .destination })
                else { continue }
                rules.append(
                    DeleteRule(
                        keyField: keyField, targetLayerId: destination.id, targetColumn: SQLFragment.quoted(destinationSide.keyField),
                        action: relationship.composite ? .delete : .setNull))
            }
        }
        deleteRules = rules
        linkColumns = serviceLayers.flatMap { other in
            (other.relationships ?? []).filter { $0.cardinality == .manyToMany && $0.relationshipTableId == info.id }
                .compactMap(\.keyFieldInRelationshipTable)
        }

        insertFields = fields.indices.filter { $0 != objectIdField }
        var columns = insertFields.map { SQLFragment.quoted(fields[$0].name) }
        switch geometry {
        case .none: break
        case .point: columns += [Self.xColumn, Self.yColumn]
        case .json: columns.append(Self.jsonColumn)
        }
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        insertSQL = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))"

        var returning = [SQLFragment.quoted(fields[objectIdField].name)]
        returning.append(globalIdField.map { SQLFragment.quoted(fields[$0].name) } ?? "NULL")
        returning += deleteRules.map { SQLFragment.quoted(fields[$0.keyField].name) }
        returningSQL = returning.joined(separator: ", ")
    }

    /// The index in ``fields`` of the field called `name`, compared case-insensitively.
    func fieldIndex(named name: String) -> Int? {
        exactNames[name] ?? lowercasedNames[name.lowercased()]
    }

    /// Quoted column name of field `index`.
    func column(_ index: Int) -> String { SQLFragment.quoted(fields[index].name) }

    /// Foreign-key columns of this layer: destination sides of relationships and relationship-table links (indexed for
    /// related-record queries and delete rules).
    var foreignKeyFields: [String] {
        let keys = (info.relationships ?? []).filter { $0.role == .destination && $0.cardinality != .manyToMany }.map(\.keyField) + linkColumns
        var names: [String] = []
        for key in keys {
            if let index = fieldIndex(named: key), !names.contains(fields[index].name) { names.append(fields[index].name) }
        }
        return names
    }

    /// The statements that create this layer's table and indexes (idempotent).
    var createStatements: [String] {
        var columns = ["\(column(objectIdField)) INTEGER PRIMARY KEY AUTOINCREMENT"]
        for index in fields.indices where index != objectIdField {
            columns.append("\(column(index)) \(Self.sqlType(of: fields[index].type))")
        }
        switch geometry {
        case .none: break
        case .point: columns += ["\(Self.xColumn) REAL", "\(Self.yColumn) REAL"]
        case .json: columns.append("\(Self.jsonColumn) TEXT")
        }
        var statements = ["CREATE TABLE IF NOT EXISTS \(table) (\(columns.joined(separator: ", ")))"]
        if let globalIdField {
            statements.append(
                "CREATE UNIQUE INDEX IF NOT EXISTS \(SQLFragment.quoted("layer_\(info.id)_globalid")) ON \(table)(\(column(globalIdField)))"
            )
        }
        for name in foreignKeyFields {
            statements.append(
                "CREATE INDEX IF NOT EXISTS \(SQLFragment.quoted("layer_\(info.id)_\(name.lowercased())")) ON \(table)(\(SQLFragment.quoted(name)))"
            )
        }
        return statements + ShapeIndex.createStatements(self)
    }

    /// The column names a table for this schema must have, in order (checked when a database file is reopened).
    var expectedColumns: [String] {
        var names = [fields[objectIdField].name] + fields.indices.filter { $0 != objectIdField }.map { fields[$0].name }
        switch geometry {
        case .none: break
        case .point: names += ["__shape_x", "__shape_y"]
        case .json: names.append("__shape")
        }
        return names
    }

    private static func sqlType(of type: FieldType) -> String {
        if type.isInteger || type == .date { return "INTEGER" }
        if type == .single || type == .double { return "REAL" }
        if type.rawValue == "esriFieldTypeBlob" { return "BLOB" }
        return "TEXT"
    }
}
