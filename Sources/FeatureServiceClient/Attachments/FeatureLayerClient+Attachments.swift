public import FeatureModel

/// Attachments of a layer's features (arcgis-rest.md §3): list, add, update, delete, download and query.
///
/// Files are streamed from disk: a file part is read in chunks while the request is sent, never loaded whole.
/// Files above ``AttachmentUploadOptions/threshold`` go through the service's `uploads` resource in parts (see
/// ``addAttachment(objectId:file:name:contentType:keywords:options:)``). No attachment request is retried or
/// resent on its own: after a failure the attachment may or may not exist, and the caller decides (list it).
///
/// ```swift
/// let added = try await layer.addAttachment(objectId: 7, file: "/photos/gate.jpg", keywords: "gate")
/// let infos = try await layer.attachments(objectId: 7)
/// try await layer.downloadAttachment(objectId: 7, attachmentId: added.objectId!, to: "/tmp/gate.jpg")
/// ```
extension FeatureLayerClient {
    /// The attachments of one feature (`GET …/<layer>/<oid>/attachments`).
    /// - Parameter objectId: The feature's object ID.
    /// - Returns: Its attachments' infos, in the service's order.
    /// - Throws: ``FeatureServiceError`` (an ArcGIS error when the layer has no attachments or the feature does not
    ///   exist); `CancellationError` when the task was cancelled.
    public func attachments(objectId: Int64) async throws -> [AttachmentInfo] {
        let url = FeatureServiceExchange.jsonURL(exchangeURL("\(objectId)/attachments"))
        return try await exchange.perform(HTTPRequest(url: url), operation: "attachments", as: AttachmentInfosResponse.self).attachmentInfos
    }

    /// Adds the file at `file` as an attachment of a feature (`POST …/<oid>/addAttachment`, multipart part
    /// `attachment`); above the threshold, through `uploads` and `uploadId`.
    ///
    /// Sent through `uploads`, the attachment's content type is the one the service derives from `name`.
    /// - Parameters:
    ///   - objectId: The feature's object ID.
    ///   - file: The path of the file to attach; read while sending, never whole.
    ///   - name: The attachment's name; default the file's name. Reduced to a plain file name (no directory).
    ///   - contentType: The media type; default from the name's extension.
    ///   - keywords: Keywords stored with the attachment.
    ///   - options: Threshold, part size and concurrency for large files.
    /// - Returns: The result, whose `objectId` is the **new attachment's id**; a refused edit comes back with
    ///   `success: false` and its ArcGIS code.
    /// - Throws: ``FeatureServiceError`` naming the step that failed (`addAttachment`, `uploads/register`,
    ///   `uploads/uploadPart`, `uploads/commit`), also when the file cannot be read; `CancellationError`.
    public func addAttachment(
        objectId: Int64, file: String, name: String? = nil, contentType: String? = nil, keywords: String? = nil,
        options: AttachmentUploadOptions = .init()
    ) async throws -> EditResult {
        let operation = "addAttachment"
        let source = try attachmentSource(file: file, name: name, contentType: contentType, options: options, operation: operation)
        var fields: [MultipartBody.Part] = [.field("f", "json")]
        if let keywords { fields.append(.field("keywords", keywords)) }
        let path = "\(objectId)/addAttachment"
        return try await sendAttachment(source, fields: fields, path: path, operation: operation, options: options, as: AddAttachmentResponse.self)
            .addAttachmentResult
    }

    /// Replaces the file of an attachment (`POST …/<oid>/updateAttachment`, multipart `attachmentId` and
    /// `attachment`); above the threshold, through `uploads` and `uploadId`.
    /// - Parameters:
    ///   - objectId: The feature's object ID.
    ///   - attachmentId: The attachment to replace.
    ///   - file: The path of the new file; read while sending, never whole.
    ///   - name: The new name; default the file's name.
    ///   - contentType: The media type; default from the name's extension.
    ///   - keywords: New keywords; nil keeps the old ones.
    ///   - options: Threshold, part size and concurrency for large files.
    /// - Returns: The result, `success: false` with its ArcGIS code when the service refused the edit.
    /// - Throws: ``FeatureServiceError`` naming the failed step; `CancellationError`.
    public func updateAttachment(
        objectId: Int64, attachmentId: Int64, file: String, name: String? = nil, contentType: String? = nil, keywords: String? = nil,
        options: AttachmentUploadOptions = .init()
    ) async throws -> EditResult {
        let operation = "updateAttachment"
        let source = try attachmentSource(file: file, name: name, contentType: contentType, options: options, operation: operation)
        var fields: [MultipartBody.Part] = [.field("f", "json"), .field("attachmentId", String(attachmentId))]
        if let keywords { fields.append(.field("keywords", keywords)) }
        let path = "\(objectId)/updateAttachment"
        return try await sendAttachment(source, fields: fields, path: path, operation: operation, options: options, as: UpdateAttachmentResponse.self)
            .updateAttachmentResult
    }

    /// Deletes attachments of a feature (`POST …/<oid>/deleteAttachments`).
    /// - Parameters:
    ///   - objectId: The feature's object ID.
    ///   - attachmentIds: The attachments to delete.
    ///   - rollbackOnFailure: Whether one unknown id deletes nothing (the service's default, true).
    /// - Returns: One result per id; with `rollbackOnFailure: false`, unknown ids come back with `success: false`.
    /// - Throws: ``FeatureServiceError`` (an ArcGIS error when the batch was rolled back); `CancellationError`.
    public func deleteAttachments(objectId: Int64, attachmentIds: [Int64], rollbackOnFailure: Bool = true) async throws -> [EditResult] {
        let fields = [
            FormField("f", "json"), FormField("attachmentIds", attachmentIds.map(String.init).joined(separator: ",")),
            FormField("rollbackOnFailure", rollbackOnFailure ? "true" : "false"),
        ]
        return try await post("\(objectId)/deleteAttachments", fields: fields, as: DeleteAttachmentsResponse.self, operation: "deleteAttachments")
            .deleteAttachmentResults
    }

    /// Downloads an attachment's bytes (`GET …/<oid>/attachments/<id>`) into the file at `path`.
    ///
    /// The bytes stream to `path.partial` as they arrive (never held whole in memory), which is renamed once the
    /// download is complete, so `path` holds either the whole attachment or its previous content. The path is the
    /// caller's alone: the attachment's name plays no part in it.
    /// - Parameters:
    ///   - objectId: The feature's object ID.
    ///   - attachmentId: The attachment.
    ///   - path: Where to write the bytes; created or replaced.
    /// - Returns: The number of bytes written.
    /// - Throws: ``FeatureServiceError`` (an ArcGIS error body for an unknown attachment; `invalidRequest` when the
    ///   file cannot be written); `CancellationError`.
    @discardableResult
    public func downloadAttachment(objectId: Int64, attachmentId: Int64, to path: String) async throws -> Int64 {
        let operation = "downloadAttachment"
        let partial = path + ".partial"
        var request = HTTPRequest(url: exchangeURL("\(objectId)/attachments/\(attachmentId)"))
        request.responseFile = partial
        var log = AttemptLog(clock: exchange.startClock())
        let response: HTTPResponse
        do {
            response = try await exchange.send(request, operation: operation, purpose: .request, log: &log)
        } catch var error as FeatureServiceError {
            LocalFile.remove(partial)
            error.attempts = log.attempts
            throw error
        } catch {
            LocalFile.remove(partial)
            throw error
        }
        do {
            if let streamed = response.fileBytes {
                try LocalFile.commit(partial, to: path)
                return streamed
            }
            // A JSON attachment came back in memory (JSON answers are kept to be read for ArcGIS errors).
            LocalFile.remove(partial)
            try LocalFile.write(response.body, to: path)
            return Int64(response.body.count)
        } catch {
            LocalFile.remove(partial)
            throw FeatureServiceError.invalidRequest(error.description, operation: operation, url: request.url)
        }
    }

    /// Attachments of many features at once (`POST …/<layer>/queryAttachments`).
    /// - Parameters:
    ///   - objectIds: Only these features; nil for all that `definitionExpression` selects.
    ///   - definitionExpression: A where clause on the features; nil for all.
    ///   - keywords: Only attachments with these keywords.
    ///   - returnCountOnly: Answer with a `count` per group instead of the infos.
    ///   - policy: How the request is retried (it is idempotent); `nil` makes one attempt.
    /// - Returns: One group per feature with matching attachments.
    /// - Throws: ``FeatureServiceError`` (an ArcGIS error for a layer without attachments or a bad expression);
    ///   `CancellationError`.
    public func queryAttachments(
        objectIds: [Int64]? = nil, definitionExpression: String? = nil, keywords: String? = nil, returnCountOnly: Bool = false,
        retry policy: RetryPolicy? = nil
    ) async throws -> AttachmentGroupsResponse {
        var fields = [FormField("f", "json")]
        if let objectIds { fields.append(FormField("objectIds", objectIds.map(String.init).joined(separator: ","))) }
        if let definitionExpression { fields.append(FormField("definitionExpression", definitionExpression)) }
        if let keywords { fields.append(FormField("keywords", keywords)) }
        if returnCountOnly { fields.append(FormField("returnCountOnly", "true")) }
        return try await post("queryAttachments", fields: fields, as: AttachmentGroupsResponse.self, operation: "queryAttachments", retry: policy)
    }
}
