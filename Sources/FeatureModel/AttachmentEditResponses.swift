/// The answer to `…/<oid>/addAttachment`: `{"addAttachmentResult":{"objectId":<attachment id>,"globalId":…,"success":true}}`.
///
/// `objectId` is the **new attachment's id**, not the feature's (arcgis-rest.md §3).
package struct AddAttachmentResponse: Sendable, Hashable, Codable {
    package var addAttachmentResult: EditResult

    package init(addAttachmentResult: EditResult) { self.addAttachmentResult = addAttachmentResult }
}

/// The answer to `…/<oid>/updateAttachment`: `{"updateAttachmentResult":{…}}`.
package struct UpdateAttachmentResponse: Sendable, Hashable, Codable {
    package var updateAttachmentResult: EditResult

    package init(updateAttachmentResult: EditResult) { self.updateAttachmentResult = updateAttachmentResult }
}

/// The answer to `…/<oid>/deleteAttachments`: `{"deleteAttachmentResults":[{"objectId":7,"globalId":…,"success":true}]}`.
package struct DeleteAttachmentsResponse: Sendable, Hashable, Codable {
    package var deleteAttachmentResults: [EditResult]

    package init(deleteAttachmentResults: [EditResult]) { self.deleteAttachmentResults = deleteAttachmentResults }
}
