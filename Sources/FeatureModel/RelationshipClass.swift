/// One relationship class in the service-level `…/FeatureServer/relationships` resource.
///
/// For a simple relationship `originForeignKey` is the foreign key in the destination; for an attributed
/// (many-to-many) one it is the origin's foreign key in the relationship table, and `destinationPrimaryKey`,
/// `destinationForeignKey` and `relationshipTableId` describe the destination's side of that table.
public struct RelationshipClass: Sendable, Hashable, Codable {
    public var id: Int
    public var name: String
    public var originLayerId: Int
    public var originPrimaryKey: String
    public var destinationLayerId: Int
    public var originForeignKey: String
    public var destinationPrimaryKey: String?
    public var destinationForeignKey: String?
    public var relationshipTableId: Int?
    public var cardinality: RelationshipCardinality
    public var composite: Bool
    public var attributed: Bool
    public var forwardPathLabel: String?
    public var backwardPathLabel: String?
    /// Relationship rules; always empty here.
    public var rules: [JSONValue]

    public init(
        id: Int, name: String, originLayerId: Int, originPrimaryKey: String, destinationLayerId: Int, originForeignKey: String,
        cardinality: RelationshipCardinality, composite: Bool, attributed: Bool = false, destinationPrimaryKey: String? = nil,
        destinationForeignKey: String? = nil, relationshipTableId: Int? = nil, forwardPathLabel: String? = nil,
        backwardPathLabel: String? = nil
    ) {
        self.id = id
        self.name = name
        self.originLayerId = originLayerId
        self.originPrimaryKey = originPrimaryKey
        self.destinationLayerId = destinationLayerId
        self.originForeignKey = originForeignKey
        self.destinationPrimaryKey = destinationPrimaryKey
        self.destinationForeignKey = destinationForeignKey
        self.relationshipTableId = relationshipTableId
        self.cardinality = cardinality
        self.composite = composite
        self.attributed = attributed
        self.forwardPathLabel = forwardPathLabel
        self.backwardPathLabel = backwardPathLabel
        self.rules = []
    }
}

/// The `…/FeatureServer/relationships` answer.
public struct RelationshipsResponse: Sendable, Hashable, Codable {
    public var relationships: [RelationshipClass]
    public init(relationships: [RelationshipClass]) { self.relationships = relationships }
}
