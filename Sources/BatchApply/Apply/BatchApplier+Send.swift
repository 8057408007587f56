import FeatureModel
import FeatureServiceClient

/// Sending one plain batch and reading what became of each of its edits.
extension BatchApplier {
    /// What one child did with one batch.
    struct BatchResult: Sendable {
        var id: Int
        /// The layer it went to (an atomic batch's first).
        var layer = 0
        var records: [EditRecord] = []
        var state: JournalBatch.State = .done
        var requests = 0
        var retries = 0
        var backoff: Duration = .zero
        var alreadyPresent = 0
        var cancelled = false
        var alreadyGone = 0
        /// What became of the files of an atomic batch.
        var files: [FileRecord] = []
        /// How the service could not be reached when the batch gave up for that: it goes back to be sent again, its
        /// records unwritten (``state`` says whether an attempt may have reached the service).
        var unavailable: String?
    }

    /// One plain batch as a request: its edits, and where each went in it.
    struct PlainRequest {
        var edits = LayerEdits()
        /// Positions in `batch.edits` (rather than filtered copies of the edits, up to `batchSize` of them), in the
        /// order of the request's results: adds sent as features (none, when every add has its GlobalID), then the
        /// encoded ones; updates; deletes. `sent` is every edit that goes, in the batch's order.
        var adds: [Int] = []
        var updates: [Int] = []
        var deletes: [Int] = []
        var sent: [Int] = []
        /// Edits that cannot go: the journal's copy is unreadable.
        var unreadable: [EditRecord] = []
    }

    /// Sends one batch through the retried applyEdits and says what became of each edit. Never throws.
    @Sendable func send(_ batch: JournalBatch) async -> BatchResult {
        if batch.atomic { return await sendAtomic(batch) }
        var result = BatchResult(id: batch.id, layer: batch.layer)
        let request = Self.request(batch)
        result.records = request.unreadable
        guard request.edits.count > 0 else { return result }
        let globalIdField = keys[batch.layer]?.globalIdField ?? "GlobalID"
        let options = ApplyEditsOptions(rollbackOnFailure: settings.rollbackOnFailure, useGlobalIds: batch.useGlobalIds)
        do {
            let layer = service.layer(id: batch.layer)
            let outcome = try await layer.applyEdits(request.edits, options: options, retry: retry, globalIdField: globalIdField)
            result.count(outcome.attempts)
            Self.read(outcome, of: request, batch: batch, into: &result)
        } catch is CancellationError {
            result.cancelled = true
        } catch let error as FeatureServiceError {
            result.count(error.attempts)
            failed(request.sent.map { batch.edits[$0].planned.position.index }, error, into: &result)
        } catch {
            if Task.isCancelled {
                result.cancelled = true
            } else {
                for index in request.sent {
                    result.records.append(EditRecord(index: batch.edits[index].planned.position.index, status: .failed, reason: "\(error)"))
                }
                result.state = .sending
            }
        }
        return result
    }

    /// The request of a plain batch. Adds go as the journal holds them, with their GlobalIDs beside: no parsing and
    /// writing them again; adds without a GlobalID and updates are read as features.
    static func request(_ batch: JournalBatch) -> PlainRequest {
        var request = PlainRequest()
        var plainAdds: [Int] = []
        var encodedAdds: [Int] = []
        var addPayloads: [String] = []
        var addIds: [String] = []
        request.sent.reserveCapacity(batch.edits.count)
        // Each edit read in place, through a buffer pointer: `let planned = batch.edits[index].planned` copied it whole.
        batch.edits.withUnsafeBufferPointer { edits in
            for index in edits.indices {
                switch edits[index].planned.kind {
                case .add where edits[index].planned.globalId != nil:
                    addPayloads.append(edits[index].planned.payload)
                    addIds.append(edits[index].planned.globalId ?? "")
                    encodedAdds.append(index)
                case .add, .update:
                    let planned = edits[index].planned
                    // The byte-level reader: JSONDecoder took a third of a run's CPU on these payloads.
                    guard let value = try? JSONReader.parse(planned.payload), let feature = try? EsriJSONFeature.feature(value) else {
                        request.unreadable.append(
                            EditRecord(index: planned.position.index, status: .rejected, reason: "the journal's copy of the edit is unreadable"))
                        continue
                    }
                    if planned.kind == .add {
                        request.edits.adds.append(feature)
                        plainAdds.append(index)
                    } else {
                        request.edits.updates.append(feature)
                        request.updates.append(index)
                    }
                case .delete:
                    if let objectId = edits[index].planned.objectId {
                        request.edits.deletes.append(objectId)
                    } else if let globalId = edits[index].planned.globalId {
                        request.edits.deleteGlobalIds.append(globalId)
                    }
                    request.deletes.append(index)
                }
                request.sent.append(index)
            }
        }
        if !addPayloads.isEmpty { request.edits.encodedAdds = encoded(addPayloads, globalIds: addIds) }
        request.adds = plainAdds + encodedAdds
        return request
    }

    /// Adds as the request body carries them, encoded as they are joined: the array is not copied into a String first.
    static func encoded(_ payloads: [String], globalIds: [String]) -> EncodedFeatures {
        var array: [UInt8] = []
        array.reserveCapacity(payloads.reduce(6) { $0 + $1.utf8.count * 3 + 3 })
        array.append(contentsOf: "%5B".utf8)
        for (offset, payload) in payloads.enumerated() {
            if offset > 0 { array.append(contentsOf: "%2C".utf8) }
            FormEncoding.appendEncodedValue(payload, to: &array)
        }
        array.append(contentsOf: "%5D".utf8)
        return EncodedFeatures(formEncoded: array, count: payloads.count, globalIds: globalIds)
    }

    /// Records what the service answered for each edit of `request`; an answer with fewer results than edits leaves
    /// the rest unknown, and the batch in doubt, to be looked up on resume.
    static func read(_ outcome: ApplyEditsOutcome, of request: PlainRequest, batch: JournalBatch, into result: inout BatchResult) {
        var inDoubt = false
        for (positions, outcomes) in [(request.adds, outcome.adds), (request.updates, outcome.updates), (request.deletes, outcome.deletes)] {
            for index in positions.dropFirst(outcomes.count) {
                inDoubt = true
                result.records.append(
                    EditRecord(
                        index: batch.edits[index].planned.position.index, status: .unknown,
                        reason: "the service answered without a result for this edit"))
            }
            for (index, outcome) in zip(positions, outcomes) {
                let record = Self.record(batch.edits[index].planned, outcome)
                if record.status == .unknown { inDoubt = true }
                if outcome.status == .appliedByEarlierAttempt {
                    switch batch.edits[index].planned.kind {
                    case .add: result.alreadyPresent += 1
                    case .delete: result.alreadyGone += 1
                    case .update: break
                    }
                }
                result.records.append(record)
            }
        }
        result.state = inDoubt ? .sending : .done
    }

    /// Records the edits at input positions `sent` after their batch failed with `error`: rejected when the service
    /// rolled the whole batch back for one of them; else failed after retries, the batch kept in doubt when an attempt
    /// may have reached the service, and marked to wait for the service when the failure says it is out of reach.
    func failed(_ sent: [Int], _ error: FeatureServiceError, into result: inout BatchResult) {
        if let arcgis = error.arcgisError, settings.rollbackOnFailure, !error.mayHaveBeenApplied, arcgis.code == 400 {
            let details = arcgis.details.isEmpty ? "" : ": " + arcgis.details.joined(separator: "; ")
            result.records += sent.map {
                EditRecord(
                    index: $0, status: .rejected, code: arcgis.code,
                    reason: "the batch was rolled back (--rollback-on-failure): \(arcgis.message)\(details)")
            }
            return
        }
        let reason = error.stopReason.map { "\(error.attemptFailure) (\($0))" } ?? "\(error.attemptFailure)"
        result.unavailable = outage(after: error.attemptFailure)
        result.records += sent.map {
            EditRecord(index: $0, status: .failed, code: error.arcgisError?.code, reason: "failed after retries: \(reason)")
        }
        // An attempt may have reached the service: keep the batch in doubt, to look it up before resending.
        result.state = error.mayHaveBeenApplied ? .sending : .done
    }

    /// The journal record of `edit`'s outcome.
    static func record(_ edit: PlannedEdit, _ outcome: EditOutcome) -> EditRecord {
        let index = edit.position.index
        switch outcome.status {
        case .applied:
            return EditRecord(index: index, status: .applied, objectId: outcome.result?.objectId ?? edit.objectId)
        case .appliedByEarlierAttempt:
            let reason =
                switch edit.kind {
                case .add: "already in the service (its GlobalID was there)"
                case .delete: "already gone (deleted by an earlier attempt or run, or never there)"
                case .update: "applied by an earlier attempt"
                }
            return EditRecord(index: index, status: .applied, objectId: outcome.result?.objectId ?? edit.objectId, reason: reason)
        case .failed:
            let error = outcome.result?.error
            return EditRecord(index: index, status: .rejected, code: error?.code, reason: error?.description ?? "rejected by the service")
        case .outcomeUnknown:
            return EditRecord(index: index, status: .unknown, reason: outcome.reason ?? "outcome unknown")
        }
    }
}
