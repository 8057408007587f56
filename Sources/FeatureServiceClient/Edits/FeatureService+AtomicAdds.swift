public import FeatureModel
import Foundation

/// A file to attach, in the same service-level applyEdits, to a feature added there (or already in the service).
public struct AttachmentAdd: Sendable, Hashable {
    /// The layer of the feature it is attached to.
    public var layer: Int
    /// The attachment's own client GlobalID, so a replay is recognised.
    public var globalId: String
    /// The GlobalID of the feature it is attached to.
    public var parentGlobalId: String
    /// The file's path.
    public var file: String
    /// The name it goes by in the service.
    public var name: String
    public var contentType: String

    public init(layer: Int, globalId: String, parentGlobalId: String, file: String, name: String, contentType: String) {
        self.layer = layer
        self.globalId = globalId
        self.parentGlobalId = parentGlobalId
        self.file = file
        self.name = name
        self.contentType = contentType
    }
}

/// Adds to several layers and files attached to them, sent as one atomic service-level applyEdits: a deep insert.
public struct AtomicAdds: Sendable {
    /// The adds of each layer, every one carrying its client GlobalID in its layer's GlobalID field.
    public var adds: [Int: [Feature]]
    /// Each layer's GlobalID field.
    public var globalIdFields: [Int: String]
    /// Each layer's object-ID field, to look adds up by GlobalID.
    public var objectIdFields: [Int: String]
    public var attachments: [AttachmentAdd]

    public init(adds: [Int: [Feature]], globalIdFields: [Int: String], objectIdFields: [Int: String], attachments: [AttachmentAdd] = []) {
        self.adds = adds
        self.globalIdFields = globalIdFields
        self.objectIdFields = objectIdFields
        self.attachments = attachments
    }

    /// The client GlobalID of `feature`, an add of `layer`.
    func globalId(of feature: Feature, layer: Int) -> String? {
        feature[attribute: globalIdFields[layer] ?? "GlobalID"]?.stringValue.flatMap(GlobalID.normalized)
    }
}

/// What became of an ``AtomicAdds``: all of it applied, or none of it.
public struct AtomicAddsOutcome: Sendable {
    public enum Status: Sendable, Hashable {
        /// This call applied every add and attachment.
        case applied
        /// Every add was already in the service: an earlier attempt (or run) applied them.
        case appliedEarlier
        /// The service refused the request and applied none of it: a per-edit failure rolled it back, or the request
        /// was invalid. Not worth sending again as it is.
        case rejected(ArcGISError)
        /// Retries gave up; nothing was applied (checked by GlobalID after any attempt that may have reached the service).
        case failed(String)
        /// Whether it was applied could not be told.
        case unknown(String)
    }

    public var status: Status
    /// The objectId of each add found or applied, by layer and canonical GlobalID.
    public var objectIds: [Int: [String: Int64]]
    /// For ``Status/rejected(_:)``: adds found already in the service (which a replay then refuses as duplicates).
    public var alreadyPresent: Int
    /// Every exchange made.
    public var attempts: [Attempt]
    /// For ``Status/failed(_:)`` after retries gave up, and ``Status/unknown(_:)`` when the check whether an attempt
    /// was applied failed too: how the last attempt failed.
    public var lastFailure: AttemptFailure?

    public var isApplied: Bool { status == .applied || status == .appliedEarlier }
}

extension FeatureService {
    /// Applies `edits` in one service-level applyEdits (`POST …/FeatureServer/applyEdits` with `useGlobalIds=true` and
    /// `rollbackOnFailure=true`): every add of every layer and every attachment arrives, or none does. Retried as
    /// `policy` allows, exactly once.
    ///
    /// Every add carries its client GlobalID, and the request is atomic, so one lookup by GlobalID tells whether an
    /// attempt that may have reached the service applied it: after such an attempt (a dropped connection, a timeout
    /// after sending, HTTP 500/502/504) the adds are looked up before anything is resent, and also when the service
    /// refuses a request (a replay of an applied request fails as a duplicate). Files up to `uploads.threshold` bytes go
    /// inline as base64; larger ones through the `uploads` resource first, their items deleted afterwards.
    /// - Returns: The outcome; never throws for a failed request (see ``AtomicAddsOutcome/Status``).
    /// - Throws: `CancellationError` — the edits may then have been applied or not.
    public func applyAtomically(_ edits: AtomicAdds, retry policy: RetryPolicy, uploads: AttachmentUploadOptions = .init()) async throws -> AtomicAddsOutcome {
        guard let first = edits.adds.keys.min() ?? edits.attachments.first?.layer else {
            return AtomicAddsOutcome(status: .applied, objectIds: [:], alreadyPresent: 0, attempts: [])
        }
        let endpoint = FeatureLayerClient(url: url, exchange: layer(id: first).exchange)
        var log = AttemptLog(clock: endpoint.exchange.startClock())
        var jitter = policy.makeGenerator()
        var madeUploads: [(client: FeatureLayerClient, itemId: String)] = []
        let attachmentsJSON: [Int: String]
        do {
            attachmentsJSON = try await prepareAttachments(edits.attachments, options: uploads, uploads: &madeUploads)
        } catch let error as FeatureServiceError {
            await Self.delete(madeUploads)
            return AtomicAddsOutcome(status: .failed("a file could not be sent: \(error)"), objectIds: [:], alreadyPresent: 0, attempts: error.attempts)
        } catch {
            await Self.delete(madeUploads)
            throw error
        }
        // The upload items are deleted once the request has settled, whatever became of it.
        let result: AtomicAddsOutcome
        do {
            result = try await send(edits, attachments: attachmentsJSON, endpoint: endpoint, log: &log, jitter: &jitter, policy: policy)
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

    /// Sends `edits` with the prepared attachment JSON until it settles.
    private func send(
        _ edits: AtomicAdds, attachments attachmentsJSON: [Int: String], endpoint: FeatureLayerClient, log: inout AttemptLog,
        jitter: inout JitterGenerator, policy: RetryPolicy
    ) async throws -> AtomicAddsOutcome {
        var text = "["
        for (index, layer) in Set(edits.adds.keys).union(attachmentsJSON.keys).sorted().enumerated() {
            if index > 0 { text += "," }
            text += "{\"id\":\(layer)"
            if let adds = edits.adds[layer], !adds.isEmpty { text += ",\"adds\":" + JSONWriter.string(features: adds) }
            if let attachments = attachmentsJSON[layer] { text += ",\"attachments\":{\"adds\":" + attachments + "}" }
            text += "}"
        }
        text += "]"
        let request = HTTPRequest.form(
            url: endpoint.exchangeURL("applyEdits"),
            fields: [FormField("f", "json"), FormField("edits", text), FormField("rollbackOnFailure", "true"), FormField("useGlobalIds", "true")])

        func outcome(_ status: AtomicAddsOutcome.Status, _ objectIds: [Int: [String: Int64]] = [:], present: Int = 0) -> AtomicAddsOutcome {
            AtomicAddsOutcome(status: status, objectIds: objectIds, alreadyPresent: present, attempts: log.attempts)
        }
        /// Looks every add up by GlobalID: how many there are, how many were found, and their objectIds.
        func check() async -> (expected: Int, found: [Int: [String: Int64]], count: Int)? {
            var found: [Int: [String: Int64]] = [:]
            var expected = 0
            var count = 0
            for (layer, adds) in edits.adds where !adds.isEmpty {
                let ids = adds.compactMap { edits.globalId(of: $0, layer: layer) }
                expected += adds.count
                guard
                    let rows = try? await self.layer(id: layer).objectIds(
                        forGlobalIds: ids, globalIdField: edits.globalIdFields[layer] ?? "GlobalID", objectIdField: edits.objectIdFields[layer] ?? "OBJECTID")
                else { return nil }
                found[layer] = rows.compactMapValues(\.first)
                count += found[layer]?.count ?? 0
            }
            return (expected, found, count)
        }
        var ambiguous = false
        while true {
            var refusal: ArcGISError?
            var failure: FeatureServiceError?
            do {
                let response = try await endpoint.exchange.send(request, operation: "service applyEdits", purpose: .request, log: &log)
                let answer = try FeatureServiceExchange.decode(response, as: [ApplyEditsResult].self, operation: "service applyEdits", url: request.url)
                let failures = answer.flatMap { $0.failures + ($0.attachments.map { $0.addResults.filter { !$0.success } } ?? []) }
                if failures.isEmpty {
                    var objectIds: [Int: [String: Int64]] = [:]
                    for result in answer {
                        guard let layer = result.id, let adds = edits.adds[layer] else { continue }
                        for (feature, added) in zip(adds, result.addResults) {
                            if let globalId = edits.globalId(of: feature, layer: layer), let objectId = added.objectId {
                                objectIds[layer, default: [:]][globalId] = objectId
                            }
                        }
                    }
                    return outcome(.applied, objectIds)
                }
                // With rollbackOnFailure the service applied nothing; a service that answers so anyway is taken at its word.
                let error = failures[0].error
                refusal = ArcGISError(code: error?.code ?? 400, message: error?.description ?? "the service refused an edit", details: [])
            } catch let error as FeatureServiceError {
                failure = error
                if error.attemptFailure.mayHaveBeenApplied { ambiguous = true }
                // A refusal is an answer the retry rules would not send again (a 429 or 503 in an envelope is retried).
                if let arcgis = error.arcgisError, !error.attemptFailure.mayHaveBeenApplied,
                    RetryClassification.classify(error.attemptFailure) == .permanent
                {
                    refusal = arcgis
                }
            }
            if let refusal {
                // A refusal of a replay may only say the adds are there already: look before calling it rejected.
                guard let checked = await check() else {
                    return outcome(.unknown("the service refused the request (\(refusal.message)), and the check whether an earlier attempt applied it failed"))
                }
                if checked.count == checked.expected && checked.expected > 0 { return outcome(.appliedEarlier, checked.found) }
                return outcome(.rejected(refusal), checked.found, present: checked.count)
            }
            guard let failure else { continue }
            let decision = log.decide(after: failure, policy: policy, using: &jitter)
            if ambiguous {
                guard let checked = await check() else {
                    var unknown = outcome(.unknown("\(failure.attemptFailure), and the check whether it was applied failed"))
                    unknown.lastFailure = failure.attemptFailure
                    return unknown
                }
                if checked.count == checked.expected && checked.expected > 0 { return outcome(.appliedEarlier, checked.found) }
                if checked.count > 0 {
                    return outcome(.unknown("\(checked.count) of \(checked.expected) adds are in the service after \(failure.attemptFailure)"), checked.found)
                }
                if edits.adds.values.allSatisfy(\.isEmpty) {
                    return outcome(.unknown("\(failure.attemptFailure): attachments alone cannot be looked up"))
                }
                ambiguous = false  // checked: nothing of it is there, so it is sent again as new
            }
            switch decision {
            case .retry(let delay):
                try await log.sleep(delay)
            case .stop(let reason):
                var failed = outcome(.failed("\(failure.attemptFailure) (\(reason))"))
                failed.lastFailure = failure.attemptFailure
                return failed
            }
        }
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
