/// The answer to `…/<oid>/addAttachment`: `{"addAttachmentResult":{"objectId":<attachment id>,"globalId":…,"success":true}}`.
///
/// `objectId` is the **new attachment's id**, not the feature's (arcgis-rest.md §3).
public struct AddAttachmentResponse: Sendable, Hashable, Codable {
    public var addAttachmentResult: EditResult

    public init(addAttachmentResult: EditResult) { self.addAttachmentResult = addAttachmentResult }
}

/// The answer to `…/<oid>/updateAttachment`: `{"updateAttachmentResult":{…}}`.
public struct UpdateAttachmentResponse: Sendable, Hashable, Codable {
    public var updateAttachmentResult: EditResult

    public init(updateAttachmentResult: EditResult) { self.updateAttachmentResult = updateAttachmentResult }
}

/// The answer to `…/<oid>/deleteAttachments`: `{"deleteAttachmentResults":[{"objectId":7,"globalId":…,"success":true}]}`.
public struct DeleteAttachmentsResponse: Sendable, Hashable, Codable {
    public var deleteAttachmentResults: [EditResult]

    public init(deleteAttachmentResults: [EditResult]) { self.deleteAttachmentResults = deleteAttachmentResults }
}
