/// One relationship class in the service-level `…/FeatureServer/relationships` resource.
///
/// For a simple relationship `originForeignKey` is the foreign key in the destination; for an attributed
/// (many-to-many) one it is the origin's foreign key in the relationship table, and `destinationPrimaryKey`,
/// `destinationForeignKey` and `relationshipTableId` describe the destination's side of that table.
package struct RelationshipClass: Sendable, Hashable, Codable {
    package var id: Int
    package var name: String
    package var originLayerId: Int
    package var originPrimaryKey: String
    package var destinationLayerId: Int
    package var originForeignKey: String
    package var destinationPrimaryKey: String?
    package var destinationForeignKey: String?
    package var relationshipTableId: Int?
    package var cardinality: RelationshipCardinality
    package var composite: Bool
    package var attributed: Bool
    package var forwardPathLabel: String?
    package var backwardPathLabel: String?
    /// Relationship rules; always empty here.
    package var rules: [JSONValue]

    package init(
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
package struct RelationshipsResponse: Sendable, Hashable, Codable {
    package var relationships: [RelationshipClass]
    package init(relationships: [RelationshipClass]) { self.relationships = relationships }
}
