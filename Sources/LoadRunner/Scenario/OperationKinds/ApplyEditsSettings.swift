import FeatureModel

/// `applyEdits`: `adds`, `updates` and `deletes` in one request (or `batchSize` adds when no count is given).
package struct ApplyEditsSettings: OperationKindSettings {
    /// Edits per request of each kind.
    package var adds: Int
    /// Existing features updated per request.
    package var updates: Int
    /// Existing features deleted per request.
    package var deletes: Int
    /// Whether the service undoes the whole request when one edit in it fails.
    package var rollbackOnFailure: Bool
    /// Adds carry client GlobalIDs (`useGlobalIds=true`), so a retried add is recognised instead of duplicated.
    package var clientGlobalIds: Bool
    /// The share of adds generated to break a restrictive contingent value or a domain; client-side validation
    /// refuses them (counted in `edits_invalid`), as the ArcGIS Maps SDKs do, and they are never sent.
    package var invalidRate: Double

    package init(
        adds: Int = 0, updates: Int = 0, deletes: Int = 0, rollbackOnFailure: Bool = true, clientGlobalIds: Bool = false, invalidRate: Double = 0
    ) {
        self.adds = adds
        self.updates = updates
        self.deletes = deletes
        self.rollbackOnFailure = rollbackOnFailure
        self.clientGlobalIds = clientGlobalIds
        self.invalidRate = invalidRate
    }

    /// The kind's defaults.
    package init() { self.init(adds: 0) }

    static let kind = OperationKind.applyEdits
    static let summary = "applyEdits: adds, updates and deletes in one request"
    static let keys: [any ScenarioKeyDeclaration] = [
        ScenarioKey.batchSize, ScenarioKey.adds, ScenarioKey.updates, ScenarioKey.deletes, ScenarioKey.rollbackOnFailure, ScenarioKey.clientGlobalIds,
        ScenarioKey.invalidRate,
    ]

    static let notWithBatchSize =
        "batchSize is the number of adds only when adds, updates and deletes are all left out: remove batchSize, or the counts"
    static var schemaRules: [SchemaValue] {
        let excluded: SchemaValue = ["description": "Not together with batchSize.", "not": [:], "errorMessage": .string(notWithBatchSize)]
        let counts = ["adds", "updates", "deletes"]
        return [
            ["if": ["required": ["batchSize"]], "then": ["properties": .object(counts.map { .init($0, excluded) })]],
            [
                "if": ["anyOf": .array(counts.map { ["required": [.string($0)]] })],
                "then": [
                    "anyOf": .array(
                        counts.map { ["required": [.string($0)], "properties": .object([.init($0, ["not": ["$ref": "#/$defs/zero"]])])] }),
                    "errorMessage": "an applyEdits with no edits: give adds, updates or deletes a count above 0",
                ],
            ],
        ]
    }

    static func read(_ input: MappingInput, _ reader: inout NodeReader) -> Self {
        let batchSize = input.read(.batchSize, &reader)
        var settings = Self(rollbackOnFailure: input.read(.rollbackOnFailure, &reader), clientGlobalIds: input.read(.clientGlobalIds, &reader))
        settings.adds = input.read(.adds, &reader)
        settings.updates = input.read(.updates, &reader)
        settings.deletes = input.read(.deletes, &reader)
        let counted = input.has("adds") || input.has("updates") || input.has("deletes")
        if !counted { settings.adds = batchSize }
        if input.has("batchSize") && counted {
            input.issue(
                "batchSize", problem: "is the number of adds when adds, updates and deletes are not given",
                fix: "remove batchSize, or the adds/updates/deletes counts", &reader)
        }
        if settings.editsPerIteration == 0 {
            reader.issue(
                input.node, field: "\(input.path).adds", problem: "an applyEdits with no edits", fix: "give adds, updates or deletes a count above 0")
        }
        settings.invalidRate = input.read(.invalidRate, &reader)
        return settings
    }

    func sweeping(batchSize value: Int) -> Self {
        var settings = self
        settings.adds = value
        return settings
    }

    package var settings: OperationSettings { .applyEdits(self) }
    package var editsPerIteration: Int { adds + updates + deletes }
    package var addsPerIteration: Int { adds }
    var fitsDriverThread: Bool { editsPerIteration <= OperationSpec.driverThreadEditLimit }
    var existingFeatures: (key: String, verb: String)? {
        updates > 0 ? ("updates", "update") : deletes > 0 ? ("deletes", "delete") : nil
    }
    var samplesExistingFeatures: Bool { updates > 0 }
    var invalidAddsRate: Double? { invalidRate }

    func problems(_ check: OperationCheck) -> [String] {
        PlanCheck.globalIdProblems(clientGlobalIds, check) + PlanCheck.invalidRateProblems(invalidRate, adds: adds, check)
    }

    func operation(_ spec: OperationSpec, environment: OperationEnvironment) -> any LoadOperation {
        EditOperation(
            environment: environment, endpoint: .applyEdits, adds: adds, updates: updates, deletes: deletes,
            options: EditOperation.Options(rollbackOnFailure: rollbackOnFailure, clientGlobalIds: clientGlobalIds, invalidRate: invalidRate))
    }
}

extension ScenarioKey where Value == Int {
    static var adds: Self {
        Self(
            "adds", .integer(0...10_000), default: 0, examples: [100],
            "applyEdits: new features added per request, 0 to 10,000; default 0 (batchSize when adds, updates and deletes are all left out).")
    }
    static var updates: Self {
        Self(
            "updates", .integer(0...10_000), default: 0, examples: [10], "applyEdits: existing features updated per request, 0 to 10,000; default 0.")
    }
    static var deletes: Self {
        Self(
            "deletes", .integer(0...10_000), default: 0, examples: [10], "applyEdits: existing features deleted per request, 0 to 10,000; default 0.")
    }
}
