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
    static let summary = "relate: links, unlinks or moves (`action`) an existing record through `relationship`, checked against the relationship's rules first"
    static let actionKey = OperationKey("action", [
        "description": "relate: `relate` links the record to a partner as well, `unrelate` removes its link to its current partner, `move` moves the link from its current partner to another; default relate.",
        "anyOf": [["type": "string", "enum": .array(Action.allCases.map { .string($0.rawValue) })], ["$ref": "#/$defs/env"]],
        "default": "relate",
    ])
    static let validateKey = OperationKey("validate", [
        "description": "relate: check each change against the relationship's rules (cardinality, orphans) before sending it, as the ArcGIS Maps SDKs do, and count a change that breaks them instead of sending it; default true.",
        "$ref": "#/$defs/boolean",
        "default": true,
    ])
    static let keys: [OperationKey] = [.relationship, actionKey, validateKey, .rollbackOnFailure]
    static let requiredKeys = ["relationship"]

    static func read(_ input: OperationInput, _ reader: inout NodeReader) -> Self {
        var settings = Self(rollbackOnFailure: input.bool("rollbackOnFailure", &reader) ?? true)
        settings.relationshipId = input.relationship(&reader) ?? 0
        if let text = input.string("action", example: "action: relate", &reader) {
            if let action = Action(rawValue: text) {
                settings.action = action
            } else {
                let actions = Action.allCases.map(\.rawValue)
                let suggestion = closest(to: text, in: actions).map { "did you mean `\($0)`? " } ?? ""
                input.issue("action", problem: "unknown action '\(text)'", fix: "\(suggestion)use one of: \(actions.joined(separator: ", "))", &reader)
            }
        }
        settings.validate = input.bool("validate", &reader) ?? true
        input.requireRelationship(kind, &reader)
        return settings
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
            spec: spec, settings: self, environment: environment, partnerTable: partner, partners: environment.partnerPool ?? IdPool(ids: [], seed: 0))
    }
}
