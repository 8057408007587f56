import FeatureModel
import Logging
import NIOCore

extension FeatureServerResponder {
    /// `…/<layer>/<oid>/attachments` → `{"attachmentInfos":[…]}`.
    /// - Throws: ``ServiceError`` (404 unknown layer or feature, 400 layer without attachments); `DatabaseError`.
    func attachmentInfos(store: FeatureStore, layerId: Int, objectId: Int64, parameters: RequestParameters) async throws -> ServerResponse {
        let infos = try await store.attachments(layerId: layerId, objectId: objectId)
        let listed = infos.map { info in
            var listed = info
            listed.parentGlobalId = nil
            return listed
        }
        return Self.render(AttachmentInfosResponse(attachmentInfos: listed), pretty: parameters.wantsPrettyJSON)
    }

    /// `…/<layer>/<oid>/attachments/<id>`: the stored bytes with their content type, streamed from the database.
    /// - Throws: ``ServiceError`` (404 unknown layer, feature or attachment); `DatabaseError`.
    func attachmentBytes(store: FeatureStore, layerId: Int, objectId: Int64, attachmentId: Int64) async throws -> ServerResponse {
        let download = try await store.attachmentDownload(layerId: layerId, objectId: objectId, attachmentId: attachmentId)
        return ServerResponse(status: 200, body: ByteBuffer(), download: download)
    }

    /// `addAttachment` → `{"addAttachmentResult":{…}}`, `updateAttachment` → `{"updateAttachmentResult":{…}}`,
    /// `deleteAttachments` → `{"deleteAttachmentResults":[…]}`.
    ///
    /// add: multipart file part `attachment` (its file name and content type are kept) or `uploadId` (a committed
    /// item of `uploads`); optional `keywords`. update: `attachmentId` plus, optionally, `attachment` or `uploadId` and
    /// `keywords`. delete: `attachmentIds` (comma list), `rollbackOnFailure` (default true).
    /// - Throws: ``ServiceError`` (404 unknown layer or feature; 400 invalid parameters, rolled back); `DatabaseError`.
    func attachmentEdit(
        _ operation: FeatureServerRoute.AttachmentOperation, store: FeatureStore, layerId: Int, objectId: Int64, parameters: RequestParameters
    ) async throws -> ServerResponse {
        let pretty = parameters.wantsPrettyJSON
        _ = try store.attachmentLayer(layerId)
        switch operation {
        case .addAttachment:
            guard let content = try await attachmentContent(parameters, store: store) else {
                throw ServiceError.invalidParameter("attachment", reason: "send a file part named 'attachment' or an 'uploadId'")
            }
            let result = try await store.addAttachment(layerId: layerId, objectId: objectId, content: content)
            return Self.render(AddAttachmentResponse(addAttachmentResult: result), pretty: pretty)
        case .updateAttachment:
            guard let text = parameters["attachmentId"], let attachmentId = Int64(text.trimmed) else {
                throw ServiceError.invalidParameter("attachmentId", reason: "an attachment id is required")
            }
            var content = try await attachmentContent(parameters, store: store) ?? AttachmentContent()
            if content.source == nil && content.keywords == nil {
                throw ServiceError.invalidParameter("attachment", reason: "send a file part named 'attachment', an 'uploadId' or 'keywords'")
            }
            if content.source == nil { content.name = nil }
            let result = try await store.updateAttachment(layerId: layerId, objectId: objectId, attachmentId: attachmentId, content: content)
            return Self.render(UpdateAttachmentResponse(updateAttachmentResult: result), pretty: pretty)
        case .deleteAttachments:
            guard let text = parameters["attachmentIds"] else { throw ServiceError.invalidParameter("attachmentIds", reason: "required") }
            var ids: [Int64] = []
            for item in AttachmentQuery.list(text.filter { $0 != "[" && $0 != "]" }) {
                guard let id = Int64(item) else { throw ServiceError.invalidParameter("attachmentIds", reason: "'\(item)' is not an attachment id") }
                ids.append(id)
            }
            let results = try await store.deleteAttachments(
                layerId: layerId, objectId: objectId, attachmentIds: ids, rollbackOnFailure: try parameters.bool("rollbackOnFailure", default: true))
            return Self.render(DeleteAttachmentsResponse(deleteAttachmentResults: results), pretty: pretty)
        }
    }

    /// `…/<layer>/queryAttachments` → `{"attachmentGroups":[…]}` (with `count` per group for `returnCountOnly`).
    /// - Throws: ``ServiceError`` (404 unknown layer, 400 invalid parameters or a layer without attachments); `DatabaseError`.
    func queryAttachments(store: FeatureStore, layerId: Int, parameters: RequestParameters) async throws -> ServerResponse {
        let layer = try store.attachmentLayer(layerId)
        let query = try AttachmentQuery.parse(parameters, layer: layer, maxRecordCount: maxRecordCount(for: store)) { error in
            logger.debug("rejected definitionExpression", metadata: ["reason": "\(error)"])
        }
        let rows = try await store.attachments(layerId: layerId, parents: query.parents, objectIds: query.objectIds, globalIds: query.globalIds)
        return Self.render(query.answer(rows), pretty: parameters.wantsPrettyJSON)
    }

    /// The new content named by `parameters`: the file part `attachment` (name and content type from the part), or
    /// the committed upload `uploadId` (name from the item); `keywords` when given. Nil when neither is sent.
    /// - Throws: ``ServiceError`` (404) for an unknown upload item; `DatabaseError`.
    func attachmentContent(_ parameters: RequestParameters, store: FeatureStore) async throws -> AttachmentContent? {
        let keywords = parameters["keywords"]
        if let part = parameters.file("attachment") {
            let contentType = part.contentType.map { AttachmentName.contentType($0) } ?? AttachmentName.contentType(forName: part.filename)
            return AttachmentContent(name: part.filename, contentType: contentType, keywords: keywords, source: .part(part))
        }
        if let itemId = parameters["uploadId"]?.trimmed {
            let item = try await store.uploadItem(itemId: itemId)
            return AttachmentContent(
                name: item.itemName, contentType: AttachmentName.contentType(forName: item.itemName), keywords: keywords,
                source: .upload(itemId: itemId))
        }
        return keywords.map { AttachmentContent(keywords: $0) }
    }
}
