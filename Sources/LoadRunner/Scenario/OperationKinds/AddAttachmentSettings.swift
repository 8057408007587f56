import FeatureModel

/// `addAttachment` of a generated file to an existing feature (through `uploads` above `uploadThreshold`).
package struct AddAttachmentSettings: OperationKindSettings {
    /// The generated files: their size and content type.
    package var files: AttachmentFiles
    /// Files larger than this go through the service's `uploads` endpoint first.
    package var uploadThreshold: Int64

    package init(files: AttachmentFiles = AttachmentFiles(), uploadThreshold: Int64 = AttachmentFiles.defaultUploadThreshold) {
        self.files = files
        self.uploadThreshold = uploadThreshold
    }

    /// The kind's defaults.
    package init() { self.init(uploadThreshold: AttachmentFiles.defaultUploadThreshold) }

    static let kind = OperationKind.addAttachment
    static let summary = "addAttachment: a generated file attached to an existing feature"
    static let keys = attachmentFileKeys

    static func read(_ input: MappingInput, _ reader: inout NodeReader) -> Self {
        let (files, threshold) = input.attachmentFiles(&reader)
        return Self(files: files, uploadThreshold: threshold)
    }

    package var settings: OperationSettings { .addAttachment(self) }
    package var editsPerIteration: Int { 1 }
    var existingFeatures: (key: String, verb: String)? { ("operation", "use") }
    var samplesExistingFeatures: Bool { true }
    var attachmentFiles: AttachmentFiles? { files }

    func problems(_ check: OperationCheck) -> [String] { PlanCheck.attachmentProblems(check) }

    func operation(_ spec: OperationSpec, environment: OperationEnvironment) -> any LoadOperation {
        AttachmentOperation(settings: self, environment: environment)
    }
}
