/// The cardinality of a relationship class.
public enum RelationshipCardinality: String, Sendable, Hashable, Codable {
    case oneToOne = "esriRelCardinalityOneToOne"
    case oneToMany = "esriRelCardinalityOneToMany"
    case manyToMany = "esriRelCardinalityManyToMany"
}

/// The side of a relationship a layer plays.
public enum RelationshipRole: String, Sendable, Hashable, Codable {
    case origin = "esriRelRoleOrigin"
    case destination = "esriRelRoleDestination"
}

/// One relationship entry in a layer's `relationships` array.
///
/// On the origin side `keyField` is the origin's primary key (often its GlobalID); on the destination side
/// it is the foreign key. `relationshipTableId` and `keyFieldInRelationshipTable` appear only for attributed
/// (many-to-many) relationships.
public struct RelationshipInfo: Sendable, Hashable, Codable {
    public var id: Int
    public var name: String
    public var relatedTableId: Int
    public var cardinality: RelationshipCardinality
    public var role: RelationshipRole
    public var keyField: String
    public var composite: Bool
    public var relationshipTableId: Int?
    public var keyFieldInRelationshipTable: String?

    public init(
        id: Int, name: String, relatedTableId: Int, cardinality: RelationshipCardinality, role: RelationshipRole,
        keyField: String, composite: Bool, relationshipTableId: Int? = nil, keyFieldInRelationshipTable: String? = nil
    ) {
        self.id = id
        self.name = name
        self.relatedTableId = relatedTableId
        self.cardinality = cardinality
        self.role = role
        self.keyField = keyField
        self.composite = composite
        self.relationshipTableId = relationshipTableId
        self.keyFieldInRelationshipTable = keyFieldInRelationshipTable
    }
}
