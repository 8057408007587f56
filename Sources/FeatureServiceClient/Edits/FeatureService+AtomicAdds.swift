import FeatureModel
import Foundation

extension FeatureService {
    /// Applies `edits` in one service-level applyEdits (`POST …/FeatureServer/applyEdits` with `useGlobalIds=true` and
    /// `rollbackOnFailure=true`): every add of every layer and every attachment arrives, or none does. Retried as
    /// `policy` allows, exactly once.
    ///
    /// Every add carries its client GlobalID, and the request is atomic, so one lookup by GlobalID tells whether an
    /// attempt that may have reached the service applied it: after such an attempt (a dropped connection, a timeout
    /// after sending, HTTP 500/502/504) the adds are looked up before anything is resent, and also when the service
    /// refuses a request (a replay of an applied request fails as a duplicate). The decisions are the layer-level
    /// applyEdits' own: one ``ApplyEditsRetryMachine`` (over ``AtomicAdds``) makes them, and the look-ups count as
    /// attempts. Files up to `uploads.threshold` bytes go inline as base64; larger ones through the `uploads` resource
    /// first, their items deleted afterwards.
    /// - Returns: The outcome; never throws for a failed request (see ``AtomicAddsOutcome/Status``).
    /// - Throws: `CancellationError` — the edits may then have been applied or not.
    package func applyAtomically(
        _ edits: AtomicAdds, retry policy: RetryPolicy, uploads: AttachmentUploadOptions = .init()
    ) async throws -> AtomicAddsOutcome {
        guard let first = edits.adds.keys.min() ?? edits.attachments.first?.layer else {
            return AtomicAddsOutcome(status: .applied, objectIds: [:], alreadyPresent: 0, attempts: [])
        }
        let endpoint = FeatureLayerClient(url: url, exchange: layer(id: first).exchange)
        var madeUploads: [(client: FeatureLayerClient, itemId: String)] = []
        let attachmentsJSON: [Int: String]
        do {
            attachmentsJSON = try await prepareAttachments(edits.attachments, options: uploads, uploads: &madeUploads)
        } catch let error as FeatureServiceError {
            await Self.delete(madeUploads)
            return AtomicAddsOutcome(
                status: .failed("a file could not be sent: \(error)"), objectIds: [:], alreadyPresent: 0, attempts: error.attempts)
        } catch {
            await Self.delete(madeUploads)
            throw error
        }
        // The upload items are deleted once the request has settled, whatever became of it.
        let result: AtomicAddsOutcome
        do {
            let options = ApplyEditsOptions(rollbackOnFailure: true, useGlobalIds: true)
            var run = RetriedAtomicAdds(
                edits: edits, options: options, request: request(edits, attachments: attachmentsJSON, options: options, endpoint: endpoint),
                endpoint: endpoint, layers: Dictionary(uniqueKeysWithValues: edits.addLayers.map { ($0, layer(id: $0)) }), policy: policy)
            result = try await run.run()
        } catch {
            await Self.delete(madeUploads)
            throw error
        }
        await Self.delete(madeUploads)
        return result
    }

    /// Deletes upload items in a task of their own, so that they go also when the caller was cancelled.
    private static func delete(_ uploads: [(client: FeatureLayerClient, itemId: String)]) async {
        guard !uploads.isEmpty else { return }
        let items = uploads.map { ($0.client, $0.itemId) }
        await Task { for (client, itemId) in items { await client.deleteUpload(itemId) } }.value
    }

    /// The service-level applyEdits request of `edits`, with the prepared attachment JSON of each layer.
    private func request(
        _ edits: AtomicAdds, attachments attachmentsJSON: [Int: String], options: ApplyEditsOptions, endpoint: FeatureLayerClient
    ) -> HTTPRequest {
        var text = "["
        for (index, layer) in Set(edits.adds.keys).union(attachmentsJSON.keys).sorted().enumerated() {
            if index > 0 { text += "," }
            text += "{\"id\":\(layer)"
            if let adds = edits.adds[layer], !adds.isEmpty { text += ",\"adds\":" + JSONWriter.string(features: adds) }
            if let attachments = attachmentsJSON[layer] { text += ",\"attachments\":{\"adds\":" + attachments + "}" }
            text += "}"
        }
        text += "]"
        return HTTPRequest.form(
            url: endpoint.exchangeURL("applyEdits"),
            fields: [
                FormField("f", "json"), FormField("edits", text), FormField("rollbackOnFailure", options.rollbackOnFailure ? "true" : "false"),
                FormField("useGlobalIds", options.useGlobalIds ? "true" : "false"),
            ])
    }

    /// The `attachments.adds` JSON of each layer: small files inline as base64, large ones uploaded first (recorded in
    /// `uploads` for deletion).
    private func prepareAttachments(
        _ attachments: [AttachmentAdd], options: AttachmentUploadOptions, uploads: inout [(client: FeatureLayerClient, itemId: String)]
    ) async throws -> [Int: String] {
        var byLayer: [Int: [JSONValue]] = [:]
        for attachment in attachments {
            let client = layer(id: attachment.layer)
            let source = try client.attachmentSource(
                file: attachment.file, name: attachment.name, contentType: attachment.contentType, options: options, operation: "service applyEdits")
            var members: [String: JSONValue] = [
                "globalId": .string(attachment.globalId), "parentGlobalId": .string(attachment.parentGlobalId),
                "contentType": .string(source.contentType), "name": .string(source.name),
            ]
            switch source.plan {
            case .direct:
                guard let data = FileManager.default.contents(atPath: attachment.file) else {
                    throw FeatureServiceError.invalidRequest("cannot read \(attachment.file)", operation: "service applyEdits", url: client.url)
                }
                members["data"] = .string(data.base64EncodedString())
            case .parts(let ranges):
                let itemId = try await client.upload(ranges, itemName: source.name, size: source.size, options: options)
                uploads.append((client, itemId))
                members["uploadId"] = .string(itemId)
            }
            byLayer[attachment.layer, default: []].append(.object(members))
        }
        return byLayer.mapValues { values in
            var writer = JSONWriter(capacity: 256)
            writer.write(JSONValue.array(values))
            return writer.string
        }
    }
}
