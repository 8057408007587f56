import FeatureModel

/// A relationship seen from one table: both ends' key fields (read from both layers' `relationships` entries) and,
/// for many-to-many, the relationship table.
struct ResolvedRelationship: Sendable, Hashable {
    var id: Int
    var name: String
    var cardinality: RelationshipCardinality
    var composite: Bool
    /// The role of the table the relationship was resolved from.
    var role: RelationshipRole
    var originTableId: Int
    var destinationTableId: Int
    /// The origin's primary key field.
    var originKey: String
    /// 1:1 and 1:M: the destination's foreign key field.
    var destinationForeignKey: String?
    /// M:N: the destination's primary key field.
    var destinationKey: String?
    /// M:N: the relationship table and its two key fields.
    var relationshipTableId: Int?
    var originKeyInRelationshipTable: String?
    var destinationKeyInRelationshipTable: String?

    var isManyToMany: Bool { relationshipTableId != nil }
    /// The other table's id.
    var relatedTableId: Int { role == .origin ? destinationTableId : originTableId }
    /// The field of this table's features that links them: the origin key, the foreign key, or for M:N the
    /// destination key.
    var thisKeyField: String { role == .origin ? originKey : (destinationForeignKey ?? destinationKey ?? "") }
    /// The field of the related table's features that the link refers to.
    var otherKeyField: String { role == .origin ? (destinationForeignKey ?? destinationKey ?? "") : originKey }
    /// M:N: the relationship-table fields holding this side's and the other side's key.
    var thisKeyInRelationshipTable: String? { role == .origin ? originKeyInRelationshipTable : destinationKeyInRelationshipTable }
    var otherKeyInRelationshipTable: String? { role == .origin ? destinationKeyInRelationshipTable : originKeyInRelationshipTable }

    /// The relationship from `mine` (an entry of this table's `relationships`) and `theirs` (the related table's
    /// entry with the same id).
    init(table tableId: Int, mine: RelationshipInfo, theirs: RelationshipInfo) {
        id = mine.id
        name = mine.name
        cardinality = mine.cardinality
        composite = mine.composite
        role = mine.role
        let (origin, destination) = mine.role == .origin ? (mine, theirs) : (theirs, mine)
        originTableId = mine.role == .origin ? tableId : mine.relatedTableId
        destinationTableId = mine.role == .origin ? mine.relatedTableId : tableId
        originKey = origin.keyField
        if let table = mine.relationshipTableId ?? theirs.relationshipTableId, mine.cardinality == .manyToMany {
            relationshipTableId = table
            destinationKey = destination.keyField
            originKeyInRelationshipTable = origin.keyFieldInRelationshipTable
            destinationKeyInRelationshipTable = destination.keyFieldInRelationshipTable
        } else {
            destinationForeignKey = destination.keyField
        }
    }
}

/// Key values compared as ArcGIS compares them: GUIDs case- and brace-insensitively, numbers by value.
enum RelationshipKey {
    /// A canonical text for `value`, or nil for null.
    static func canonical(_ value: JSONValue?) -> String? {
        guard let value, !value.isNull else { return nil }
        if let text = value.stringValue { return GlobalID.normalized(text) ?? text }
        if let number = value.intValue { return String(number) }
        return value.description
    }

    /// `field IN ('a','b')` (numbers unquoted).
    static func whereIn(_ field: String, _ values: [JSONValue]) -> String {
        let items = values.map { value -> String in
            if let number = value.intValue { return String(number) }
            let text = value.stringValue.map { GlobalID.normalized($0) ?? $0 } ?? value.description
            return "'" + text.replacing("'", with: "''") + "'"
        }
        return "\(field) IN (\(items.joined(separator: ",")))"
    }

    /// The value written into a key field: GUIDs in canonical form.
    static func stored(_ value: JSONValue) -> JSONValue {
        if let text = value.stringValue, let globalId = GlobalID.normalized(text) { return .string(globalId) }
        return value
    }
}
