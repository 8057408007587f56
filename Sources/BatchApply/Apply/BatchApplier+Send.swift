import FeatureModel
import FeatureServiceClient

/// Sending one plain batch and reading what became of each of its edits.
extension BatchApplier {
    /// What one child did with one batch.
    struct BatchResult: Sendable {
        var id: Int
        /// The layer it went to (an atomic batch's first).
        var layer = 0
        /// How many edits of it were sent (for pacing).
        var sentEdits = 0
        var records: [EditRecord]
        var state: JournalBatch.State
        var requests: Int
        var retries: Int
        var backoff: Duration
        var alreadyPresent: Int
        var cancelled: Bool
        var alreadyGone = 0
        /// What became of the files of an atomic batch.
        var files: [FileRecord] = []
        /// The features of the edits sent that did not apply (failed, or of unknown outcome).
        var unsettled: [FeatureKey] = []
        /// How the service could not be reached when the batch gave up for that: it goes back to be sent again, its
        /// records unwritten (``state`` says whether an attempt may have reached the service).
        var unavailable: String?
    }

    /// Sends one batch through the retried applyEdits and says what became of each edit. Never throws.
    @Sendable func send(_ batch: JournalBatch) async -> BatchResult {
        if batch.atomic { return await sendAtomic(batch) }
        var result = BatchResult(id: batch.id, records: [], state: .done, requests: 0, retries: 0, backoff: .zero, alreadyPresent: 0, cancelled: false)
        result.layer = batch.layer
        let globalIdField = keys[batch.layer]?.globalIdField ?? "GlobalID"
        var edits = LayerEdits()
        // Positions in `batch.edits` (rather than filtered copies of the edits, up to `batchSize` of them), in the
        // order of the request's results: adds sent as features (none, when every add has its GlobalID), then the
        // encoded ones; updates; deletes. `sent` is every edit that goes, in the batch's order.
        var plainAdds: [Int] = []
        var encodedAdds: [Int] = []
        var updates: [Int] = []
        var deletes: [Int] = []
        var sent: [Int] = []
        sent.reserveCapacity(batch.edits.count)
        // Adds go as the journal holds them, with their GlobalIDs beside: no parsing and writing them again.
        var addPayloads: [String] = []
        var addIds: [String] = []
        for index in batch.edits.indices {
            let planned = batch.edits[index].planned
            switch planned.kind {
            case .add where planned.globalId != nil:
                addPayloads.append(planned.payload)
                addIds.append(planned.globalId ?? "")
                encodedAdds.append(index)
            case .add, .update:
                // The byte-level reader: JSONDecoder took a third of a run's CPU on these payloads.
                guard let value = try? JSONReader.parse(planned.payload), let feature = try? EsriJSONFeature.feature(value) else {
                    result.records.append(EditRecord(index: planned.position.index, status: .rejected, reason: "the journal's copy of the edit is unreadable"))
                    continue
                }
                if planned.kind == .add {
                    edits.adds.append(feature)
                    plainAdds.append(index)
                } else {
                    edits.updates.append(feature)
                    updates.append(index)
                }
            case .delete:
                if let objectId = planned.objectId { edits.deletes.append(objectId) } else if let globalId = planned.globalId { edits.deleteGlobalIds.append(globalId) }
                deletes.append(index)
            }
            sent.append(index)
        }
        if !addPayloads.isEmpty {
            // Encoded for the request body as they are joined: the array is not copied into a String first.
            var array: [UInt8] = []
            array.reserveCapacity(addPayloads.reduce(6) { $0 + $1.utf8.count * 3 + 3 })
            array.append(contentsOf: "%5B".utf8)
            for (offset, payload) in addPayloads.enumerated() {
                if offset > 0 { array.append(contentsOf: "%2C".utf8) }
                FormEncoding.appendEncodedValue(payload, to: &array)
            }
            array.append(contentsOf: "%5D".utf8)
            edits.encodedAdds = EncodedFeatures(formEncoded: array, count: addPayloads.count, globalIds: addIds)
        }
        guard edits.count > 0 else { return result }
        let adds = plainAdds + encodedAdds
        let options = ApplyEditsOptions(rollbackOnFailure: settings.rollbackOnFailure, useGlobalIds: batch.useGlobalIds)
        do {
            let outcome = try await service.layer(id: batch.layer).applyEdits(edits, options: options, retry: retry, globalIdField: globalIdField)
            result.count(outcome.attempts)
            var inDoubt = false
            for (positions, outcomes) in [(adds, outcome.adds), (updates, outcome.updates), (deletes, outcome.deletes)] {
                // An answer with fewer results than edits leaves the rest unknown, to be looked up on resume.
                for index in positions.dropFirst(outcomes.count) {
                    inDoubt = true
                    result.records.append(
                        EditRecord(index: batch.edits[index].planned.position.index, status: .unknown, reason: "the service answered without a result for this edit"))
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
        } catch is CancellationError {
            result.cancelled = true
        } catch let error as FeatureServiceError {
            result.count(error.attempts)
            if let arcgis = error.arcgisError, settings.rollbackOnFailure, !error.mayHaveBeenApplied, arcgis.code == 400 {
                // The service rolled the whole batch back because of one of its edits.
                for index in sent {
                    result.records.append(
                        EditRecord(
                            index: batch.edits[index].planned.position.index, status: .rejected, code: arcgis.code,
                            reason: "the batch was rolled back (--rollback-on-failure): \(arcgis.message)\(arcgis.details.isEmpty ? "" : ": " + arcgis.details.joined(separator: "; "))"))
                }
            } else {
                let reason = error.stopReason.map { "\(error.attemptFailure) (\($0))" } ?? "\(error.attemptFailure)"
                result.unavailable = outage(after: error.attemptFailure)
                for index in sent {
                    result.records.append(
                        EditRecord(index: batch.edits[index].planned.position.index, status: .failed, code: error.arcgisError?.code, reason: "failed after retries: \(reason)"))
                }
                // An attempt may have reached the service: keep the batch in doubt, to look it up before resending.
                result.state = error.mayHaveBeenApplied ? .sending : .done
            }
        } catch {
            if Task.isCancelled {
                result.cancelled = true
            } else {
                for index in sent {
                    result.records.append(EditRecord(index: batch.edits[index].planned.position.index, status: .failed, reason: "\(error)"))
                }
                result.state = .sending
            }
        }
        return result
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
