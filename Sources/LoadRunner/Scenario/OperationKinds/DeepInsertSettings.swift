import FeatureModel

/// A new parent with `children` related records and `attachments` files in one service-level applyEdits.
package struct DeepInsertSettings: OperationKindSettings {
    /// The id of the relationship in the layer's `relationships`.
    package var relationshipId: Int
    /// Related records added with each parent.
    package var children: Int
    /// Files attached to each parent.
    package var attachments: Int
    /// The generated files: their size and content type.
    package var files: AttachmentFiles
    /// Files larger than this go through the service's `uploads` endpoint first.
    package var uploadThreshold: Int64
    /// Whether the service undoes the whole request when one edit in it fails.
    package var rollbackOnFailure: Bool

    package init(
        relationship: Int = 0, children: Int = 2, attachments: Int = 0, files: AttachmentFiles = AttachmentFiles(),
        uploadThreshold: Int64 = AttachmentFiles.defaultUploadThreshold, rollbackOnFailure: Bool = true
    ) {
        self.relationshipId = relationship
        self.children = children
        self.attachments = attachments
        self.files = files
        self.uploadThreshold = uploadThreshold
        self.rollbackOnFailure = rollbackOnFailure
    }

    /// The kind's defaults.
    package init() { self.init(relationship: 0) }

    static let kind = OperationKind.deepInsert
    static let summary = "deepInsert: a new parent with `children` related records and `attachments` files in one service-level applyEdits"
    static let keys: [any ScenarioKeyDeclaration] =
        [ScenarioKey.relationship, ScenarioKey.children, ScenarioKey.attachments] + attachmentFileKeys + [ScenarioKey.rollbackOnFailure]
    static let requiredKeys = ["relationship"]

    static func read(_ input: MappingInput, _ reader: inout NodeReader) -> Self {
        var settings = Self(rollbackOnFailure: input.read(.rollbackOnFailure, &reader))
        settings.relationshipId = input.relationship(required: kind, &reader) ?? 0
        (settings.files, settings.uploadThreshold) = input.attachmentFiles(&reader)
        settings.children = input.read(.children, &reader)
        settings.attachments = input.read(.attachments, &reader)
        return settings
    }

    package var settings: OperationSettings { .deepInsert(self) }
    package var editsPerIteration: Int { 1 + children + attachments }
    package var addsPerIteration: Int { 1 }
    /// The parent is shaped to the layer's contingent values; none is broken on purpose.
    var invalidAddsRate: Double? { 0 }
    var relationship: Int? { relationshipId }
    var attachmentFiles: AttachmentFiles? { attachments > 0 ? files : nil }

    /// A deep insert adds the parent, the origin of the relationship (one-to-one and one-to-many).
    func problems(_ check: OperationCheck) -> [String] {
        var problems = PlanCheck.relationshipProblems(relationshipId, role: .origin, check)
        if attachments > 0 && check.layer.hasAttachments != true {
            problems.append(
                "\(check.field).attachments: \(check.layerName) has no attachments. Fix: set attachments: 0 or pick a layer with hasAttachments")
        }
        return problems
    }

    func operation(_ spec: OperationSpec, environment: OperationEnvironment) -> any LoadOperation {
        let child = environment.relatedTable(of: spec.layer, relationship: relationshipId) ?? spec.layer
        let generator =
            environment.layers[child].map { FeatureGenerator(layer: $0, seed: environment.generator.seed ^ 0xC41D) } ?? environment.generator
        return DeepInsertOperation(spec: spec, settings: self, environment: environment, childTable: child, childGenerator: generator)
    }
}

extension ScenarioKey where Value == Int {
    static var children: Self {
        Self(
            "children", .integer(0...1_000), default: 2, examples: [3],
            "deepInsert: related records added together with each parent, 0 to 1,000; default 2.")
    }
    static var attachments: Self {
        Self("attachments", .integer(0...100), default: 0, examples: [1], "deepInsert: files attached to each parent, 0 to 100; default 0.")
    }
}
