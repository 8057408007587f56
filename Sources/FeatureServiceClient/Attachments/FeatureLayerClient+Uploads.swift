import FeatureModel

/// A file ready to be attached: its size, the name and content type it goes by, and how it is sent.
struct AttachmentSource: Sendable {
    var path: String
    var size: Int64
    var name: String
    var contentType: String
    var plan: AttachmentUploadPlan
}

/// `{"success":true}`, the answer of `uploadPart` and `delete`.
private struct UploadSuccess: Decodable {
    var success: Bool
}

extension FeatureLayerClient {
    /// Checks `options` and the file, and decides how the file is sent.
    /// - Throws: ``FeatureServiceError`` (`invalidRequest`, named `operation`) for bad options or an unreadable file.
    func attachmentSource(
        file: String, name: String?, contentType: String?, options: AttachmentUploadOptions, operation: String
    ) throws -> AttachmentSource {
        guard options.partSize > 0, options.concurrency > 0, options.threshold >= 0 else {
            throw FeatureServiceError.invalidRequest(
                "AttachmentUploadOptions need partSize > 0, concurrency > 0 and threshold >= 0", operation: operation, url: url)
        }
        let size: Int64
        do {
            size = try LocalFile.size(of: file)
        } catch {
            throw FeatureServiceError.invalidRequest(error.description + "; pass the path of a readable file", operation: operation, url: url)
        }
        let name = AttachmentFileName.sanitized(name ?? file)
        return AttachmentSource(
            path: file, size: size, name: name, contentType: contentType ?? AttachmentFileName.contentType(forName: name),
            plan: AttachmentUploadPlan.make(path: file, size: size, options: options))
    }

    /// Sends an addAttachment or updateAttachment: `fields` plus the file part `attachment`, or, for a file planned
    /// in parts, plus `uploadId` of an `uploads` item made for it and deleted afterwards (also on failure).
    /// - Throws: ``FeatureServiceError`` naming the failed step; `CancellationError`.
    func sendAttachment<T: Decodable>(
        _ source: AttachmentSource, fields: [MultipartBody.Part], path: String, operation: String, options: AttachmentUploadOptions,
        as type: T.Type
    ) async throws -> T {
        switch source.plan {
        case .direct:
            let file = MultipartBody.Part.file(
                name: "attachment", filename: source.name, contentType: source.contentType,
                range: MultipartBody.FileRange(path: source.path, length: source.size))
            let request = HTTPRequest.multipart(url: exchangeURL(path), body: MultipartBody(parts: fields + [file]))
            return try await exchange.perform(request, operation: operation, as: T.self)
        case .parts(let ranges):
            let itemId = try await upload(ranges, itemName: source.name, size: source.size, options: options)
            let request = HTTPRequest.multipart(url: exchangeURL(path), body: MultipartBody(parts: fields + [.field("uploadId", itemId)]))
            let result: T
            do {
                result = try await exchange.perform(request, operation: operation, as: T.self)
            } catch {
                await deleteUpload(itemId)
                throw error
            }
            await deleteUpload(itemId)
            return result
        }
    }

    /// Registers an `uploads` item, sends `ranges` as its parts 1…n (at most `options.concurrency` at a time) and
    /// commits them in order.
    /// - Returns: The committed item's ID, to pass as `uploadId`.
    /// - Throws: ``FeatureServiceError`` named `uploads/register`, `uploads/uploadPart` or `uploads/commit` (the
    ///   item is deleted when a part or the commit fails); `CancellationError`.
    func upload(_ ranges: [MultipartBody.FileRange], itemName: String, size: Int64, options: AttachmentUploadOptions) async throws -> String {
        let registered = try await exchange.perform(
            HTTPRequest.form(
                url: uploadsURL("register"), fields: [FormField("f", "json"), FormField("itemName", itemName), FormField("description", "")]),
            operation: "uploads/register", as: UploadItemResponse.self)
        let itemId = registered.item.itemID
        do {
            try await uploadParts(ranges, itemId: itemId, itemName: itemName, concurrency: options.concurrency)
            let partList = (1...ranges.count).map(String.init).joined(separator: ",")
            let commitURL = uploadsURL("\(itemId)/commit")
            let committed = try await exchange.perform(
                HTTPRequest.form(url: commitURL, fields: [FormField("f", "json"), FormField("parts", partList)]), operation: "uploads/commit",
                as: UploadItemResponse.self)
            if let committedSize = committed.item.size, committedSize != size {
                throw FeatureServiceError.invalidRequest(
                    "the committed upload holds \(committedSize) bytes, the file \(size); was the file changed while sending?",
                    operation: "uploads/commit", url: commitURL)
            }
        } catch {
            await deleteUpload(itemId)
            throw error
        }
        return itemId
    }

    /// Sends each range as part `index + 1`, keeping at most `concurrency` requests in flight; the first failure
    /// cancels the others and is thrown.
    private func uploadParts(_ ranges: [MultipartBody.FileRange], itemId: String, itemName: String, concurrency: Int) async throws {
        let partURL = uploadsURL("\(itemId)/uploadPart")
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            func startNext() {
                let partId = next + 1
                let range = ranges[next]
                next += 1
                let body = MultipartBody(parts: [
                    .field("f", "json"), .field("partId", String(partId)),
                    .file(name: "file", filename: itemName, contentType: "application/octet-stream", range: range),
                ])
                group.addTask {
                    let answer = try await exchange.perform(
                        .multipart(url: partURL, body: body), operation: "uploads/uploadPart \(partId) of \(ranges.count)", as: UploadSuccess.self)
                    guard answer.success else {
                        throw FeatureServiceError.invalidRequest(
                            "the service did not accept part \(partId)", operation: "uploads/uploadPart", url: partURL)
                    }
                }
            }
            while next < min(concurrency, ranges.count) { startNext() }
            while try await group.next() != nil {
                if next < ranges.count { startNext() }
            }
        }
    }

    /// Deletes an `uploads` item, best effort: a failure leaves the item for the service to expire.
    func deleteUpload(_ itemId: String) async {
        _ = try? await exchange.perform(
            HTTPRequest.form(url: uploadsURL("\(itemId)/delete"), fields: [FormField("f", "json")]), operation: "uploads/delete",
            as: UploadSuccess.self)
    }

    /// `…/FeatureServer/uploads/<component>` for this layer's service, keeping the layer URL's query string.
    func uploadsURL(_ component: String) -> String {
        let query = url.firstIndex(of: "?").map { String(url[$0...]) } ?? ""
        var path = query.isEmpty ? url : String(url[..<url.firstIndex(of: "?")!])
        while path.hasSuffix("/") { path.removeLast() }
        if let slash = path.lastIndex(of: "/") { path = String(path[..<slash]) }
        return path + "/uploads/" + component + query
    }
}
