public import FeatureModel

/// A file attached in memory to a feature of a ``ServiceFeatureTable``: sent with the next service-level applyEdits
/// (``FeatureService/applyEditsAndAttachments(tables:rollbackOnFailure:)``) in the `attachments` member of its
/// layer's entry, so the feature, its related features and its attachments are written together or not at all.
public struct PendingAttachment: Sendable, Hashable {
    /// The attachment's client-assigned GlobalID, in canonical form; the service keeps it.
    public var globalId: String
    /// The layer of the parent feature.
    public var tableId: Int
    /// The parent feature's GlobalID, in canonical form; the parent may be a pending add.
    public var parentGlobalId: String
    /// The path of the file; read when the edits are applied.
    public var file: String
    /// The attachment's name.
    public var name: String
    /// The attachment's media type.
    public var contentType: String
    /// How the file is sent: up to ``AttachmentUploadOptions/threshold`` bytes inline as base64 `data`, larger files
    /// through the `uploads` resource and referenced by `uploadId`.
    public var options: AttachmentUploadOptions
    /// Why the last attempt to apply the attachment failed; nil until one failed.
    public var lastError: EditError?

    /// The key of the parent's pending edit (`<table>/<GlobalID>`).
    var parentKey: String { "\(tableId)/\(parentGlobalId)" }
}

/// What became of one pending attachment when it was applied.
public struct AttachmentEditResult: Sendable, Hashable {
    /// The layer of the parent feature.
    public var tableId: Int
    /// The attachment's GlobalID.
    public var globalId: String
    /// The parent feature's GlobalID.
    public var parentGlobalId: String
    /// The attachment id the service assigned, when applied.
    public var attachmentId: Int64?
    /// Applied, failed, or unknown.
    public var status: EditOutcome.Status
    /// Why the attachment was not added: the service's ArcGIS code and description, or the failure of the whole
    /// call.
    public var error: EditError?

    /// A result.
    package init(
        tableId: Int, globalId: String, parentGlobalId: String, attachmentId: Int64?, status: EditOutcome.Status, error: EditError? = nil
    ) {
        self.tableId = tableId
        self.globalId = globalId
        self.parentGlobalId = parentGlobalId
        self.attachmentId = attachmentId
        self.status = status
        self.error = error
    }

    /// Whether the attachment is in the service now.
    public var isApplied: Bool { status == .applied || status == .appliedByEarlierAttempt }
}

/// The results of one service-level applyEdits: one per feature edit and one per pending attachment.
public struct ServiceEditResults: Sendable, Hashable {
    /// One result per feature edit, table by table in pending order.
    public var features: [FeatureEditResult]
    /// One result per pending attachment, table by table in the order they were added.
    public var attachments: [AttachmentEditResult]

    /// Results.
    package init(features: [FeatureEditResult] = [], attachments: [AttachmentEditResult] = []) {
        self.features = features
        self.attachments = attachments
    }

    /// Whether every edit and every attachment is in the service now.
    public var allApplied: Bool { features.allSatisfy(\.isApplied) && attachments.allSatisfy(\.isApplied) }
}

extension ServiceFeatureTable {
    /// The attachments waiting to be applied, in the order they were added.
    public var pendingAttachments: [PendingAttachment] { pending.attachments }

    /// Attaches the file at `file` to `feature` in memory: a pending local edit, like ``add(_:)``.
    ///
    /// `feature` is identified by its GlobalID, so it may itself be a pending add (its client-assigned GlobalID):
    /// ``FeatureService/applyEditsAndAttachments(tables:rollbackOnFailure:)`` sends the feature, its related
    /// features and this attachment in one service-level applyEdits (`useGlobalIds=true`), all or nothing. The
    /// layer-level ``applyEdits(batchSize:concurrency:retry:rollbackOnFailure:)`` leaves pending attachments
    /// pending. Deleting a feature drops the attachments pending for it.
    ///
    /// The file's size and readability are checked now and again when applied; its bytes are read only then.
    /// - Parameters:
    ///   - feature: A feature of this table with a GlobalID.
    ///   - file: The path of a readable regular file.
    ///   - name: The attachment's name; default the file's name.
    ///   - contentType: The media type; default from the name's extension.
    ///   - options: Files above `options.threshold` (default 10 MB) go through the `uploads` resource.
    /// - Returns: The pending attachment, with its new client-assigned GlobalID.
    /// - Throws: ``FeatureServiceError`` (`invalidRequest`) when the layer has no attachments, the feature has no
    ///   GlobalID, the options are invalid or the file cannot be read.
    @discardableResult
    public func addAttachment(
        to feature: Feature, file: String, name: String? = nil, contentType: String? = nil, options: AttachmentUploadOptions = .init()
    ) throws -> PendingAttachment {
        let operation = "addAttachment"
        guard info.hasAttachments == true else {
            throw FeatureServiceError.invalidRequest(
                "layer \(tableId) does not support attachments (hasAttachments is not true)", operation: operation, url: client.url)
        }
        guard let parentGlobalId = globalId(of: feature) else {
            throw FeatureServiceError.invalidRequest(
                "the feature has no GlobalID; attachments are added in applyEdits by the parent's GlobalID (make the feature with makeFeature or query it)",
                operation: operation, url: client.url)
        }
        let source = try client.attachmentSource(file: file, name: name, contentType: contentType, options: options, operation: operation)
        let attachment = PendingAttachment(
            globalId: GlobalID.make(), tableId: tableId, parentGlobalId: parentGlobalId, file: file, name: source.name,
            contentType: source.contentType, options: options)
        pending.attachments.append(attachment)
        return attachment
    }

    /// Drops the pending attachment with `globalId` (nothing is sent).
    /// - Returns: Whether one was pending.
    @discardableResult
    public func discardAttachment(globalId: String) -> Bool {
        let canonical = GlobalID.normalized(globalId) ?? globalId
        let before = pending.attachments.count
        pending.attachments.removeAll { $0.globalId == canonical }
        return pending.attachments.count != before
    }

    /// Takes every pending edit and attachment for a service-level applyEdits and marks the table as applying.
    /// - Throws: ``FeatureServiceError`` when an applyEdits of this table is already running.
    func beginServiceApply() throws -> (entries: [PendingEditSnapshot], attachments: [PendingAttachment]) {
        let entries = try beginApply()
        return (entries, pending.attachments)
    }

    /// Settles the attachments of a service-level applyEdits: applied ones leave the pending attachments, the others
    /// keep their error. Call before ``finishApply(_:)``.
    func finishAttachments(_ results: [AttachmentEditResult]) {
        for result in results {
            guard let index = pending.attachments.firstIndex(where: { $0.globalId == result.globalId }) else { continue }
            if result.isApplied {
                pending.attachments.remove(at: index)
            } else {
                pending.attachments[index].lastError = result.error ?? EditError(code: 0, description: "the outcome of the attachment is unknown")
            }
        }
    }
}
