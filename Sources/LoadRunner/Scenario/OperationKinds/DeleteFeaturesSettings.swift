import FeatureModel

/// `deleteFeatures`: `batchSize` existing features per request.
package struct DeleteFeaturesSettings: OperationKindSettings {
    /// Features (or object IDs) per request.
    package var batchSize: Int
    /// Whether the service undoes the whole request when one edit in it fails.
    package var rollbackOnFailure: Bool

    package init(batchSize: Int = 1, rollbackOnFailure: Bool = true) {
        self.batchSize = batchSize
        self.rollbackOnFailure = rollbackOnFailure
    }

    /// The kind's defaults.
    package init() { self.init(batchSize: 1) }

    static let kind = OperationKind.deleteFeatures
    static let summary = "deleteFeatures: batchSize existing features per request"
    static let keys: [any ScenarioKeyDeclaration] = [ScenarioKey.batchSize, ScenarioKey.rollbackOnFailure]

    static func read(_ input: MappingInput, _ reader: inout NodeReader) -> Self {
        let batchSize = input.read(.batchSize, &reader)
        return Self(batchSize: batchSize, rollbackOnFailure: input.read(.rollbackOnFailure, &reader))
    }

    func sweeping(batchSize value: Int) -> Self {
        var settings = self
        settings.batchSize = value
        return settings
    }

    package var settings: OperationSettings { .deleteFeatures(self) }
    package var editsPerIteration: Int { batchSize }
    var fitsDriverThread: Bool { batchSize <= OperationSpec.driverThreadEditLimit }
    /// Deletes take features out of the pool rather than sample them.
    var existingFeatures: (key: String, verb: String)? { ("operation", "use") }

    func operation(_ spec: OperationSpec, environment: OperationEnvironment) -> any LoadOperation {
        EditOperation(
            environment: environment, endpoint: .deleteFeatures, adds: 0, updates: 0, deletes: batchSize,
            options: EditOperation.Options(rollbackOnFailure: rollbackOnFailure))
    }
}
