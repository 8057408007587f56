import FeatureModel

/// `addFeatures`: `batchSize` new features per request.
package struct AddFeaturesSettings: OperationKindSettings {
    /// Features (or object IDs) per request.
    package var batchSize: Int
    /// Whether the service undoes the whole request when one edit in it fails.
    package var rollbackOnFailure: Bool
    /// Adds carry client GlobalIDs (`useGlobalIds=true`), so a retried add is recognised instead of duplicated.
    package var clientGlobalIds: Bool
    /// The share of adds generated to break a contingent value or a domain (see ``ApplyEditsSettings/invalidRate``).
    package var invalidRate: Double

    package init(batchSize: Int = 1, rollbackOnFailure: Bool = true, clientGlobalIds: Bool = false, invalidRate: Double = 0) {
        self.batchSize = batchSize
        self.rollbackOnFailure = rollbackOnFailure
        self.clientGlobalIds = clientGlobalIds
        self.invalidRate = invalidRate
    }

    /// The kind's defaults.
    package init() { self.init(batchSize: 1) }

    static let kind = OperationKind.addFeatures
    static let summary = "addFeatures: batchSize new features per request"
    static let keys: [any ScenarioKeyDeclaration] = [
        ScenarioKey.batchSize, ScenarioKey.rollbackOnFailure, ScenarioKey.clientGlobalIds, ScenarioKey.invalidRate,
    ]

    static func read(_ input: MappingInput, _ reader: inout NodeReader) -> Self {
        Self(
            batchSize: input.read(.batchSize, &reader), rollbackOnFailure: input.read(.rollbackOnFailure, &reader),
            clientGlobalIds: input.read(.clientGlobalIds, &reader), invalidRate: input.read(.invalidRate, &reader))
    }

    func sweeping(batchSize value: Int) -> Self {
        var settings = self
        settings.batchSize = value
        return settings
    }

    package var settings: OperationSettings { .addFeatures(self) }
    package var editsPerIteration: Int { batchSize }
    package var addsPerIteration: Int { batchSize }
    var fitsDriverThread: Bool { batchSize <= OperationSpec.driverThreadEditLimit }
    var invalidAddsRate: Double? { invalidRate }

    func problems(_ check: OperationCheck) -> [String] {
        PlanCheck.globalIdProblems(clientGlobalIds, check) + PlanCheck.invalidRateProblems(invalidRate, adds: batchSize, check)
    }

    func operation(_ spec: OperationSpec, environment: OperationEnvironment) -> any LoadOperation {
        EditOperation(
            environment: environment, endpoint: .addFeatures, adds: batchSize, updates: 0, deletes: 0,
            options: EditOperation.Options(rollbackOnFailure: rollbackOnFailure, clientGlobalIds: clientGlobalIds, invalidRate: invalidRate))
    }
}
