import FeatureModel

extension FeatureServerResponder {
    /// The `uploads` resource of a service (arcgis-rest.md §3):
    ///
    /// | request | answer |
    /// |---|---|
    /// | `POST uploads/upload` (multipart `file`, `description`) | `{"success":true,"item":{…,"committed":true}}` |
    /// | `POST uploads/register` (`itemName`, `description`) | `{"success":true,"item":{…,"committed":false}}` |
    /// | `POST uploads/<itemID>/uploadPart` (multipart `file`, `partId` 1…10000) | `{"success":true}` |
    /// | `POST uploads/<itemID>/commit` (`parts=1,2,3`, optional) | `{"success":true,"item":{…,"committed":true}}` |
    /// | `GET uploads/<itemID>` | `{"success":true,"item":{…}}` |
    /// | `GET uploads/<itemID>/parts` | `{"parts":["1","2"]}` |
    /// | `POST uploads/<itemID>/delete` | `{"success":true}` |
    ///
    /// A committed item is an `uploadId` for addAttachment, updateAttachment and applyEdits attachments.
    /// - Throws: ``ServiceError`` (404 unknown item; 400 invalid parameters; 413 over the attachment size limit);
    ///   `DatabaseError`.
    func uploads(_ route: UploadsRoute, store: FeatureStore, parameters: RequestParameters) async throws -> ServerResponse {
        let pretty = parameters.wantsPrettyJSON
        switch route {
        case .upload:
            guard let part = parameters.file("file") else {
                throw ServiceError.invalidParameter("file", reason: "send the file as a multipart part named 'file'")
            }
            guard part.size <= maximumAttachmentSize else { throw AttachmentLimit.tooLarge(limit: maximumAttachmentSize) }
            let item = try await store.upload(part, description: parameters["description"])
            return Self.render(UploadItemResponse(item: item), pretty: pretty)
        case .register:
            let item = try await store.registerUpload(itemName: parameters["itemName"], description: parameters["description"])
            return Self.render(UploadItemResponse(item: item), pretty: pretty)
        case .uploadPart(let itemId):
            let partId = try UploadItemID.partId(parameters["partId"] ?? parameters["partNum"])
            guard let part = parameters.file("file") else {
                throw ServiceError.invalidParameter("file", reason: "send the part as a multipart part named 'file'")
            }
            guard part.size <= maximumAttachmentSize else { throw AttachmentLimit.tooLarge(limit: maximumAttachmentSize) }
            try await store.uploadPart(itemId: itemId, partId: partId, part)
            return Self.render(JSONValue.object(["success": true]), pretty: pretty)
        case .commit(let itemId):
            var order: [Int]?
            if let text = parameters["parts"] {
                var parts: [Int] = []
                for item in AttachmentQuery.list(text) { parts.append(try UploadItemID.partId(item)) }
                order = parts
            }
            let item = try await store.commitUpload(itemId: itemId, parts: order, limit: maximumAttachmentSize)
            return Self.render(UploadItemResponse(item: item), pretty: pretty)
        case .item(let itemId):
            return Self.render(UploadItemResponse(item: try await store.uploadItem(itemId: itemId)), pretty: pretty)
        case .parts(let itemId):
            let parts = try await store.uploadParts(itemId: itemId)
            return Self.render(UploadPartsResponse(parts: parts.map(String.init)), pretty: pretty)
        case .delete(let itemId):
            try await store.deleteUpload(itemId: itemId)
            return Self.render(JSONValue.object(["success": true]), pretty: pretty)
        }
    }
}
