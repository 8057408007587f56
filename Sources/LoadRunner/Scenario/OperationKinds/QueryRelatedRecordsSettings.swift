import FeatureModel

/// `queryRelatedRecords` for `batchSize` existing features through `relationship`.
package struct QueryRelatedRecordsSettings: OperationKindSettings {
    /// The relationship id; 0 when the file gives none.
    package var relationshipId: Int
    /// Features (or object IDs) per request.
    package var batchSize: Int
    /// The fields to return.
    package var outFields: [String]
    /// Whether answers include geometries.
    package var returnGeometry: Bool
    /// Page through every page of the answer, this many rows per request.
    package var pageSize: Int?

    package init(relationship: Int = 0, batchSize: Int = 1, outFields: [String] = ["*"], returnGeometry: Bool = true, pageSize: Int? = nil) {
        self.relationshipId = relationship
        self.batchSize = batchSize
        self.outFields = outFields
        self.returnGeometry = returnGeometry
        self.pageSize = pageSize
    }

    /// The kind's defaults.
    package init() { self.init(relationship: 0) }

    static let kind = OperationKind.queryRelatedRecords
    static let summary = "queryRelatedRecords: the records related to batchSize existing features through `relationship`"
    static let keys: [any ScenarioKeyDeclaration] = [
        ScenarioKey.relationship, ScenarioKey.batchSize, ScenarioKey.outFields, ScenarioKey.returnGeometry, ScenarioKey.pageSize,
    ]

    static func read(_ input: MappingInput, _ reader: inout NodeReader) -> Self {
        var settings = Self()
        settings.batchSize = input.read(.batchSize, &reader)
        settings.outFields = input.read(.outFields, &reader)
        settings.returnGeometry = input.read(.returnGeometry, &reader)
        settings.pageSize = input.read(.pageSize, &reader)
        settings.relationshipId = input.relationship(required: nil, &reader) ?? 0
        return settings
    }

    func sweeping(batchSize value: Int) -> Self {
        var settings = self
        settings.batchSize = value
        return settings
    }

    package var settings: OperationSettings { .queryRelatedRecords(self) }
    package var editsPerIteration: Int { 0 }
    var existingFeatures: (key: String, verb: String)? { ("operation", "use") }
    var samplesExistingFeatures: Bool { true }
    var relationship: Int? { relationshipId }

    func problems(_ check: OperationCheck) -> [String] { PlanCheck.relationshipProblems(relationshipId, role: nil, check) }

    func operation(_ spec: OperationSpec, environment: OperationEnvironment) -> any LoadOperation {
        RelatedQueryOperation(settings: self, environment: environment)
    }
}
