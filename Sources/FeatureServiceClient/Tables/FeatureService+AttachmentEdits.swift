import FeatureModel
import Foundation

/// A pending attachment ready to go in an applyEdits `attachments` member: its bytes inline, or the `uploads` item
/// that holds them.
struct PreparedAttachment: Sendable, Hashable {
    enum Content: Sendable, Hashable {
        /// The file's bytes, base64.
        case data(String)
        /// A committed `uploads` item.
        case uploadId(String)
    }

    var attachment: PendingAttachment
    var content: Content

    /// `{"globalId":…,"parentGlobalId":…,"contentType":…,"name":…,"data"|"uploadId":…}`.
    var json: JSONValue {
        var members: [String: JSONValue] = [
            "globalId": .string(attachment.globalId), "parentGlobalId": .string(attachment.parentGlobalId),
            "contentType": .string(attachment.contentType), "name": .string(attachment.name),
        ]
        switch content {
        case .data(let base64): members["data"] = .string(base64)
        case .uploadId(let itemId): members["uploadId"] = .string(itemId)
        }
        return .object(members)
    }
}

extension FeatureService {
    /// Applies the pending edits **and pending attachments** of `tables` in one service-level applyEdits
    /// (`POST …/FeatureServer/applyEdits`, `useGlobalIds=true`): all or nothing when `rollbackOnFailure` is true.
    ///
    /// The deep insert with attachments: a new parent, children keyed to its client GlobalID, and files attached to
    /// any of them (``ServiceFeatureTable/addAttachment(to:file:name:contentType:options:)``) go in one transaction.
    /// Each layer's attachments go in the `attachments` member of its entry, `{"adds":[{globalId, parentGlobalId,
    /// contentType, name, data | uploadId}]}`. Files up to their threshold are sent inline as base64 `data`; larger
    /// ones are first uploaded through the `uploads` resource (in parts) and referenced by `uploadId`; the upload
    /// items are deleted after the call, whatever its outcome. When an upload fails nothing is sent and every edit
    /// and attachment fails with that error.
    ///
    /// Applied edits and attachments leave their table; failed ones (and those of unknown outcome) stay pending with
    /// their error. The call is not retried.
    /// - Parameters:
    ///   - tables: The tables whose pending edits and attachments to send (tables of this service).
    ///   - rollbackOnFailure: All or nothing. Default true.
    /// - Returns: One result per edit and one per attachment.
    /// - Throws: ``FeatureServiceError`` when one of the tables is already applying (nothing is sent then);
    ///   `CancellationError` — the edits then stay pending, and may have been applied.
    public func applyEditsAndAttachments(tables: [ServiceFeatureTable], rollbackOnFailure: Bool = true) async throws -> ServiceEditResults {
        var taken: [(table: ServiceFeatureTable, entries: [PendingEditSnapshot], attachments: [PendingAttachment])] = []
        do {
            for table in tables where !taken.contains(where: { $0.table === table }) {
                let (entries, attachments) = try await table.beginServiceApply()
                taken.append((table, entries, attachments))
            }
        } catch {
            for item in taken { await item.table.cancelApply() }
            throw error
        }
        let all = taken.flatMap(\.entries)
        let attachments = taken.flatMap(\.attachments)
        guard !all.isEmpty || !attachments.isEmpty else {
            for item in taken { await item.table.cancelApply() }
            return ServiceEditResults()
        }
        var plan = ServiceEditPlan(all)
        var outcome: [PendingEditSnapshot: FeatureEditResult] = [:]
        var attachmentOutcome: [String: AttachmentEditResult] = [:]
        var uploads: [(client: FeatureLayerClient, itemId: String)] = []
        var sent = false
        do {
            let prepared = try await prepare(attachments, uploads: &uploads)
            plan.add(attachments: prepared)
            sent = true
            let endpoint = FeatureLayerClient(url: url, exchange: layer(id: plan.layers[0].tableId).exchange)
            let fields = [
                FormField("f", "json"), FormField("edits", plan.editsJSON), FormField("rollbackOnFailure", String(rollbackOnFailure)),
                FormField("useGlobalIds", "true"),
            ]
            let answer = try await endpoint.post("applyEdits", fields: fields, as: [ApplyEditsResult].self, operation: "service applyEdits")
            outcome = plan.results(of: answer)
            attachmentOutcome = plan.attachmentResults(of: answer)
        } catch let error as FeatureServiceError {
            outcome = plan.results(of: error)
            attachmentOutcome = ServiceEditPlan.attachmentResults(attachments, error: error)
            if !sent {  // an attachment could not be prepared: nothing was sent
                outcome = outcome.mapValues { $0.with(status: .failed) }
                attachmentOutcome = attachmentOutcome.mapValues { $0.with(status: .failed) }
            }
        } catch {
            for (client, itemId) in uploads { await client.deleteUpload(itemId) }
            for item in taken { await item.table.cancelApply() }
            throw error
        }
        for (client, itemId) in uploads { await client.deleteUpload(itemId) }
        var results = ServiceEditResults()
        for (table, entries, pendingAttachments) in taken {
            let settledAttachments = pendingAttachments.map { attachmentOutcome[$0.globalId]! }
            await table.finishAttachments(settledAttachments)
            let settled = entries.map { (snapshot: $0, result: outcome[$0]!) }
            await table.finishApply(settled)
            results.features += settled.map(\.result)
            results.attachments += settledAttachments
        }
        return results
    }

    /// Reads the small files as base64 and sends the large ones to `uploads`, recording each committed item in
    /// `uploads` (for the caller to delete).
    /// - Throws: ``FeatureServiceError`` for an unreadable file or a failed upload; `CancellationError`.
    private func prepare(
        _ attachments: [PendingAttachment], uploads: inout [(client: FeatureLayerClient, itemId: String)]
    ) async throws -> [PreparedAttachment] {
        var prepared: [PreparedAttachment] = []
        for attachment in attachments {
            let client = layer(id: attachment.tableId)
            let source = try client.attachmentSource(
                file: attachment.file, name: attachment.name, contentType: attachment.contentType, options: attachment.options,
                operation: "service applyEdits")
            switch source.plan {
            case .direct:
                guard let data = FileManager.default.contents(atPath: attachment.file), Int64(data.count) == source.size else {
                    throw FeatureServiceError.invalidRequest(
                        "cannot read \(attachment.file) whole; was it changed or removed after addAttachment?", operation: "service applyEdits",
                        url: client.url)
                }
                prepared.append(PreparedAttachment(attachment: attachment, content: .data(data.base64EncodedString())))
            case .parts(let ranges):
                let itemId = try await client.upload(ranges, itemName: source.name, size: source.size, options: attachment.options)
                uploads.append((client, itemId))
                prepared.append(PreparedAttachment(attachment: attachment, content: .uploadId(itemId)))
            }
        }
        return prepared
    }
}

extension FeatureEditResult {
    /// The result with `status`.
    func with(status: EditOutcome.Status) -> FeatureEditResult {
        var copy = self
        copy.status = status
        return copy
    }
}

extension AttachmentEditResult {
    /// The result with `status`.
    func with(status: EditOutcome.Status) -> AttachmentEditResult {
        var copy = self
        copy.status = status
        return copy
    }
}

extension ServiceEditPlan {
    /// Puts each attachment in the entry of its layer (a new entry at the end for a layer with no feature edits).
    mutating func add(attachments: [PreparedAttachment]) {
        for prepared in attachments {
            if let position = layers.firstIndex(where: { $0.tableId == prepared.attachment.tableId }) {
                layers[position].attachmentAdds.append(prepared)
            } else {
                var layer = Layer(tableId: prepared.attachment.tableId)
                layer.attachmentAdds = [prepared]
                layers.append(layer)
            }
        }
    }

    /// The `attachments` member of `layer`'s entry, or nil when it has no attachment edits.
    static func attachmentsJSON(_ layer: Layer) -> String? {
        guard !layer.attachmentAdds.isEmpty else { return nil }
        var writer = JSONWriter(capacity: 256)
        writer.write(JSONValue.object(["adds": .array(layer.attachmentAdds.map(\.json))]))
        return writer.string
    }

    /// The attachment results of a successful answer, by attachment GlobalID, matched by layer id and position.
    func attachmentResults(of answer: [ApplyEditsResult]) -> [String: AttachmentEditResult] {
        var results: [String: AttachmentEditResult] = [:]
        for layer in layers where !layer.attachmentAdds.isEmpty {
            let wire = answer.first { $0.id == layer.tableId }?.attachments?.addResults
            for (index, prepared) in layer.attachmentAdds.enumerated() {
                let attachment = prepared.attachment
                let item = wire.flatMap { index < $0.count ? $0[index] : nil }
                let status: EditOutcome.Status = item == nil ? .outcomeUnknown : item!.success ? .applied : .failed
                var error = item?.error
                if item == nil { error = EditError(code: 0, description: "the service sent no result for this attachment") }
                if status == .failed && error == nil {
                    error = EditError(code: 0, description: "the service reported a failure without an error")
                }
                results[attachment.globalId] = AttachmentEditResult(
                    tableId: attachment.tableId, globalId: attachment.globalId, parentGlobalId: attachment.parentGlobalId,
                    attachmentId: status == .applied ? item?.objectId : nil, status: status, error: status == .applied ? nil : error)
            }
        }
        return results
    }

    /// Every attachment failed (or, when the request may have been applied, of unknown outcome) with `error`.
    static func attachmentResults(_ attachments: [PendingAttachment], error: FeatureServiceError) -> [String: AttachmentEditResult] {
        let status: EditOutcome.Status = error.mayHaveBeenApplied ? .outcomeUnknown : .failed
        let editError = EditError(batchFailure: error)
        var results: [String: AttachmentEditResult] = [:]
        for attachment in attachments {
            results[attachment.globalId] = AttachmentEditResult(
                tableId: attachment.tableId, globalId: attachment.globalId, parentGlobalId: attachment.parentGlobalId, attachmentId: nil,
                status: status, error: editError)
        }
        return results
    }
}
