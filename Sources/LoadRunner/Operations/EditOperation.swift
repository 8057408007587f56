import FeatureModel
import FeatureServiceClient

/// `applyEdits` (adds, updates and deletes in one request) and the single-purpose `addFeatures`,
/// `updateFeatures` and `deleteFeatures`, with generated payloads on existing or new features.
struct EditOperation: LoadOperation {
    /// The endpoint a request goes to.
    enum Endpoint: Sendable {
        case applyEdits, addFeatures, updateFeatures, deleteFeatures
    }

    /// What every edit operation's settings say about its requests.
    struct Options: Sendable {
        var rollbackOnFailure = true
        /// Adds carry client GlobalIDs (`useGlobalIds=true`).
        var clientGlobalIds = false
        /// The share of adds broken on purpose.
        var invalidRate = 0.0
    }

    let environment: OperationEnvironment
    let endpoint: Endpoint
    /// Edits per request of each kind.
    let adds: Int
    let updates: Int
    let deletes: Int
    let options: Options

    nonisolated(nonsending) func perform(index: Int, sample: inout IterationSample) async {
        let generator = environment.generator
        let first = index * max(adds + updates, 1)
        // One attempt, no exactly-once: applyEdits then goes out once (sendOnce), and when nothing needs the adds as
        // values afterwards (no contingent-value shaping either) they are written straight into JSON.
        let singleAttempt = environment.retry == nil && !options.clientGlobalIds
        // Exactly-once adds are written straight into JSON too, with their GlobalIDs beside them for the retries.
        let keyField = options.clientGlobalIds ? environment.info.globalIdField : nil
        let encoded = endpoint == .applyEdits && (singleAttempt || keyField != nil) && environment.shaper == nil
        var newFeatures = adds > 0 && !encoded ? generator.features(from: first, count: adds) : []
        if let shaper = environment.shaper {
            newFeatures = shape(newFeatures, first: first, shaper: shaper, sample: &sample)
        }
        var globalIds: [String] = []
        if let field = keyField {
            // Time-ordered, as a well-behaved client makes them: each request's land together at the end of the
            // service's GlobalID index (random ones cost it an index page each).
            var random = SplitMix64(seed: environment.runNonce ^ UInt64(truncatingIfNeeded: first) &* 0x9E37_79B9_7F4A_7C15)
            let milliseconds = GlobalID.currentMilliseconds()
            globalIds = (0..<(encoded ? adds : newFeatures.count)).map {
                GlobalID.makeTimeOrdered(milliseconds: milliseconds, sequence: $0, using: &random)
            }
            for i in newFeatures.indices { newFeatures[i].attributes[field] = .string(globalIds[i]) }
        }
        let objectIdField = environment.info.objectIdField
        let changed = environment.pool.sample(updates).enumerated().map { offset, objectId in
            var feature = generator.feature(at: first + adds + offset)
            feature.attributes[objectIdField] = .int(objectId)
            return feature
        }
        let removed = environment.pool.take(deletes)
        if changed.count < updates || removed.count < deletes {
            sample.editsFailed += (updates - changed.count) + (deletes - removed.count)
            sample.fail("no existing feature left to \(changed.count < updates ? "update" : "delete"); seed more with `setup: { seed: N }`")
        }
        var edits = LayerEdits(adds: newFeatures, updates: changed, deletes: removed)
        if encoded && adds > 0, let field = keyField {
            let body = generator.formEncoded(from: first, count: adds, globalIdField: field, globalIds: globalIds)
            edits.encodedAdds = EncodedFeatures(formEncoded: body, count: adds, globalIds: globalIds)
        } else if encoded && adds > 0 {
            edits.encodedAdds = EncodedFeatures(formEncoded: generator.formEncoded(from: first, count: adds), count: adds)
        }
        guard edits.count > 0 else { return }
        switch endpoint {
        case .applyEdits:
            if singleAttempt {
                await sendOnce(edits, into: &sample)
            } else {
                await sendRetried(edits, into: &sample)
            }
        default:
            await sendSingle(edits, into: &sample)
        }
    }

    /// Fits each add to the contingent values, breaks `invalidRate` of them, and keeps only those the SDK's
    /// validation would send; the others count as invalid, by reason.
    private func shape(_ features: [Feature], first: Int, shaper: ValidityShaper, sample: inout IterationSample) -> [Feature] {
        var kept: [Feature] = []
        kept.reserveCapacity(features.count)
        for (offset, feature) in features.enumerated() {
            var random = ValidityShaper.random(seed: environment.generator.seed, index: first + offset)
            var shaped = shaper.respecting(feature, random: &random)
            if options.invalidRate > 0 && random.nextUnit() < options.invalidRate { shaped = shaper.breaking(shaped, random: &random) }
            if let reason = shaper.refusal(shaped) {
                sample.editsInvalid += 1
                sample.fail("not sent: " + reason)
            } else {
                kept.append(shaped)
            }
        }
        return kept
    }

    private var requestOptions: ApplyEditsOptions {
        ApplyEditsOptions(rollbackOnFailure: options.rollbackOnFailure, useGlobalIds: options.clientGlobalIds)
    }

    /// One applyEdits request, no retry: measures the service rather than the client's recovery.
    private nonisolated(nonsending) func sendOnce(_ edits: LayerEdits, into sample: inout IterationSample) async {
        do {
            let answer = try await environment.layer.applyEdits(edits, options: requestOptions)
            record(adds: edits.adds, sent: edits.addCount, results: answer.addResults, into: &sample)
            record(results: answer.updateResults, sent: edits.updates.count, into: &sample)
            record(deletes: edits.deletes, results: answer.deleteResults, into: &sample)
        } catch {
            guard !Task.isCancelled else { return sample.cutOff(edits: edits.count, globalIds: clientGlobalIds(edits)) }
            sample.fail(error, edits: edits.count)
            environment.pool.add(edits.deletes)
        }
    }

    /// applyEdits under the retry policy and the exactly-once rule; every attempt is counted.
    private func sendRetried(_ edits: LayerEdits, into sample: inout IterationSample) async {
        do {
            let outcome = try await environment.layer.applyEdits(
                edits, options: requestOptions, retry: environment.retry ?? .none, globalIdField: environment.info.globalIdField ?? "GlobalID")
            sample.retries += outcome.attempts.retryCount
            sample.backoff += outcome.attempts.totalBackoff
            let globalIds = clientGlobalIds(edits)
            for (offset, add) in outcome.adds.prefix(edits.addCount).enumerated() {
                let globalId = offset < globalIds.count ? globalIds[offset] : nil
                switch add.status {
                case .applied, .appliedByEarlierAttempt:
                    guard let objectId = add.result?.objectId, objectId >= 0 else {
                        sample.fail(EditError(code: 0, description: "edit applied but the service gave no objectId"))
                        continue
                    }
                    sample.editsApplied += 1
                    if add.status == .appliedByEarlierAttempt { sample.editsAppliedByEarlierAttempt += 1 }
                    sample.addedObjectIds.append(objectId)
                    if let globalId { sample.addedGlobalIds.append(globalId) }
                    environment.pool.add([objectId])
                case .failed:
                    sample.fail(add.result?.error)
                case .outcomeUnknown:
                    sample.editsFailed += 1
                    sample.editsUnknown += 1
                    if let globalId { sample.unknownGlobalIds.append(globalId) }
                    sample.fail("outcome unknown: " + (add.reason ?? "the request may have been applied"))
                }
            }
            missing(answered: outcome.adds.count, sent: edits.adds.count, into: &sample)
            for update in outcome.updates {
                if update.isApplied { sample.editsApplied += 1 } else { sample.fail(update.result?.error) }
            }
            for (objectId, delete) in zip(edits.deletes, outcome.deletes) {
                if delete.isApplied {
                    sample.editsApplied += 1
                    sample.deletedObjectIds.append(objectId)
                } else {
                    sample.fail(delete.result?.error)
                }
            }
        } catch {
            guard !Task.isCancelled else { return sample.cutOff(edits: edits.count, globalIds: clientGlobalIds(edits)) }
            sample.fail(error, edits: edits.count)
        }
    }

    /// addFeatures, updateFeatures or deleteFeatures: one request of one kind.
    private func sendSingle(_ edits: LayerEdits, into sample: inout IterationSample) async {
        let table = environment.table
        do {
            switch endpoint {
            case .addFeatures:
                let results = try await table.addFeatures(
                    edits.adds, useGlobalIds: options.clientGlobalIds, rollbackOnFailure: options.rollbackOnFailure)
                record(adds: edits.adds, sent: edits.adds.count, results: results, into: &sample)
            case .updateFeatures:
                let results = try await table.updateFeatures(edits.updates, rollbackOnFailure: options.rollbackOnFailure)
                record(results: results, sent: edits.updates.count, into: &sample)
            default:
                let results = try await table.deleteFeatures(objectIds: edits.deletes, rollbackOnFailure: options.rollbackOnFailure)
                record(deletes: edits.deletes, results: results, into: &sample)
            }
        } catch {
            guard !Task.isCancelled else { return sample.cutOff(edits: edits.count, globalIds: clientGlobalIds(edits)) }
            sample.fail(error, edits: edits.count)
        }
    }

    /// The client GlobalIDs of the adds in `edits` (none unless the scenario sends its own).
    private func clientGlobalIds(_ edits: LayerEdits) -> [String] {
        guard options.clientGlobalIds, let field = environment.info.globalIdField else { return [] }
        if let encoded = edits.encodedAdds { return encoded.globalIds ?? [] }
        return edits.adds.compactMap { $0.attributes[field]?.stringValue }
    }

    /// Counts the results of `sent` adds; `adds` are those sent as values (the encoded ones carry no client GlobalIDs).
    private func record(adds: [Feature], sent: Int, results: [EditResult], into sample: inout IterationSample) {
        let globalIdField = environment.info.globalIdField
        // This request's new IDs go straight into the sample, and the pool takes them from there.
        let firstAdded = sample.addedObjectIds.count
        for (offset, result) in results.prefix(sent).enumerated() {
            if result.success, let objectId = result.objectId {
                sample.editsApplied += 1
                sample.addedObjectIds.append(objectId)
                if options.clientGlobalIds, offset < adds.count, let field = globalIdField,
                    let globalId = adds[offset].attributes[field]?.stringValue
                {
                    sample.addedGlobalIds.append(globalId)
                }
            } else {
                sample.fail(result.error)
            }
        }
        environment.pool.add(sample.addedObjectIds[firstAdded...])
        missing(answered: results.count, sent: sent, into: &sample)
    }

    private func record(results: [EditResult], sent: Int, into sample: inout IterationSample) {
        for result in results {
            if result.success { sample.editsApplied += 1 } else { sample.fail(result.error) }
        }
        missing(answered: results.count, sent: sent, into: &sample)
    }

    private func record(deletes: [Int64], results: [EditResult], into sample: inout IterationSample) {
        for (objectId, result) in zip(deletes, results) {
            if result.success {
                sample.editsApplied += 1
                sample.deletedObjectIds.append(objectId)
            } else {
                sample.fail(result.error)
                environment.pool.add([objectId])
            }
        }
        missing(answered: results.count, sent: deletes.count, into: &sample)
    }

    private func missing(answered: Int, sent: Int, into sample: inout IterationSample) {
        guard answered < sent else { return }
        sample.editsFailed += sent - answered
        sample.fail("the service answered for \(answered) of \(sent) edits")
    }
}
