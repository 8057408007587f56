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
    /// The relationship id, unique within the service; relate and related queries name it.
    public var id: Int
    /// The relationship's name.
    public var name: String
    /// The layer or table on the other side.
    public var relatedTableId: Int
    /// One-to-one, one-to-many or many-to-many.
    public var cardinality: RelationshipCardinality
    /// Whether this layer is the origin or the destination.
    public var role: RelationshipRole
    /// This layer's key: the primary key on the origin side, the foreign key on the destination side.
    public var keyField: String
    /// Whether deleting an origin feature deletes its related destination features.
    public var composite: Bool
    /// The table holding the links of an attributed (many-to-many) relationship.
    public var relationshipTableId: Int?
    /// The field of the relationship table that holds this layer's key.
    public var keyFieldInRelationshipTable: String?

    package init(
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
