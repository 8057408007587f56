import FeatureModel

/// `queryAttachments` for `batchSize` existing features, optionally downloading each attachment.
package struct QueryAttachmentsSettings: OperationKindSettings {
    /// Features (or object IDs) per request.
    package var batchSize: Int
    /// Download every attachment listed.
    package var download: Bool

    package init(batchSize: Int = 1, download: Bool = false) {
        self.batchSize = batchSize
        self.download = download
    }

    /// The kind's defaults.
    package init() { self.init(batchSize: 1) }

    static let kind = OperationKind.queryAttachments
    static let summary = "queryAttachments: the attachments of batchSize existing features, optionally downloaded"
    static let keys: [any ScenarioKeyDeclaration] = [ScenarioKey.batchSize, ScenarioKey.download]

    static func read(_ input: MappingInput, _ reader: inout NodeReader) -> Self {
        let batchSize = input.read(.batchSize, &reader)
        return Self(batchSize: batchSize, download: input.read(.download, &reader))
    }

    func sweeping(batchSize value: Int) -> Self {
        var settings = self
        settings.batchSize = value
        return settings
    }

    package var settings: OperationSettings { .queryAttachments(self) }
    package var editsPerIteration: Int { 0 }
    var existingFeatures: (key: String, verb: String)? { ("operation", "use") }
    var samplesExistingFeatures: Bool { true }

    func problems(_ check: OperationCheck) -> [String] { PlanCheck.attachmentProblems(check) }

    func operation(_ spec: OperationSpec, environment: OperationEnvironment) -> any LoadOperation {
        AttachmentQueryOperation(settings: self, environment: environment)
    }
}

extension ScenarioKey where Value == Bool {
    static var download: Self {
        Self("download", .boolean, default: false, "queryAttachments: also download every attachment listed; default false.")
    }
}
