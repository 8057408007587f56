import FeatureModel

/// `relate`, `unrelate` or `move` (`action`) an existing feature through `relationship`, validated first.
package struct RelateSettings: OperationKindSettings {
    /// What a `relate` iteration does to the link.
    package enum Action: String, Sendable, Hashable, CaseIterable {
        /// Link the feature to a partner as well (a foreign key set, or a relationship-table row added).
        case relate
        /// Remove the link to its current partner (the key nulled, or the row deleted).
        case unrelate
        /// Move the link from its current partner to another.
        case move
    }

    /// The id of the relationship in the layer's `relationships`.
    package var relationshipId: Int
    /// What the iteration does to the link.
    package var action: Action
    /// Check the relationship's constraints before sending.
    package var validate: Bool
    /// Whether the service undoes the whole request when one edit in it fails.
    package var rollbackOnFailure: Bool

    package init(relationship: Int = 0, action: Action = .relate, validate: Bool = true, rollbackOnFailure: Bool = true) {
        self.relationshipId = relationship
        self.action = action
        self.validate = validate
        self.rollbackOnFailure = rollbackOnFailure
    }

    /// The kind's defaults.
    package init() { self.init(relationship: 0) }

    static let kind = OperationKind.relate
    static let summary =
        "relate: links, unlinks or moves (`action`) an existing record through `relationship`, checked against the relationship's rules first"
    static let keys: [any ScenarioKeyDeclaration] = [
        ScenarioKey.relationship, ScenarioKey.relateAction, ScenarioKey.validate, ScenarioKey.rollbackOnFailure,
    ]
    static let requiredKeys = ["relationship"]

    static func read(_ input: MappingInput, _ reader: inout NodeReader) -> Self {
        Self(
            relationship: input.relationship(required: kind, &reader) ?? 0, action: input.read(.relateAction, &reader),
            validate: input.read(.validate, &reader), rollbackOnFailure: input.read(.rollbackOnFailure, &reader))
    }

    package var settings: OperationSettings { .relate(self) }
    package var editsPerIteration: Int { 1 }
    var existingFeatures: (key: String, verb: String)? { ("operation", "use") }
    var samplesExistingFeatures: Bool { true }
    var relationship: Int? { relationshipId }

    /// Relate changes the foreign key, which the destination holds (one-to-one and one-to-many).
    func problems(_ check: OperationCheck) -> [String] { PlanCheck.relationshipProblems(relationshipId, role: .destination, check) }

    func operation(_ spec: OperationSpec, environment: OperationEnvironment) -> any LoadOperation {
        let partner = environment.relatedTable(of: spec.layer, relationship: relationshipId) ?? spec.layer
        return RelateOperation(
            spec: spec, settings: self, environment: environment, partnerTable: partner, partners: environment.partnerPool ?? IdPool(ids: [], seed: 0)
        )
    }
}

extension ScenarioKey where Value == RelateSettings.Action {
    static var relateAction: Self {
        Self(
            "action", .choice, default: .relate,
            "relate: `relate` links the record to a partner as well, `unrelate` removes its link to its current partner, `move` moves the link from its current partner to another; default relate."
        )
    }
}

extension ScenarioKey where Value == Bool {
    static var validate: Self {
        Self(
            "validate", .boolean, default: true,
            "relate: check each change against the relationship's rules (cardinality, orphans) before sending it, as the ArcGIS Maps SDKs do, and count a change that breaks them instead of sending it; default true."
        )
    }
}
