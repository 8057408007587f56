import FeatureModel
import FeatureServiceClient

extension BatchApplier {
    /// How files are sent: through `uploads` above the run's threshold.
    var uploadOptions: AttachmentUploadOptions {
        settings.attachments.map { AttachmentUploadOptions(threshold: $0.uploadThreshold) } ?? AttachmentUploadOptions()
    }

    /// Sends an atomic batch: its groups (a parent, the adds keyed to it, their files) in one service-level
    /// applyEdits, all or nothing, retried exactly once (``FeatureService/applyAtomically(_:retry:uploads:)``).
    ///
    /// When the service refuses the request because of one edit, nothing of it was applied, and the groups are sent
    /// again in halves until the refused group is found alone: that group is rejected whole (every record of it with
    /// the reason), the others go through. Never throws.
    func sendAtomic(_ batch: JournalBatch) async -> BatchResult {
        var result = BatchResult(id: batch.id, layer: batch.layer)
        var groups: [[JournalEdit]] = []
        var groupOf: [Int: Int] = [:]
        for edit in batch.edits {
            let root = edit.planned.group ?? edit.planned.position.index
            if let index = groupOf[root] {
                groups[index].append(edit)
            } else {
                groupOf[root] = groups.count
                groups.append([edit])
            }
        }
        var files: [Int: [AttachmentAdd]] = [:]
        for attachment in batch.attachments { files[attachment.position, default: []].append(attachment.add) }
        var inDoubt = false
        do {
            var pending = [groups[...]]
            while let next = pending.popLast() {
                let (records, refused) = try await settle(Array(next), files: files, into: &result)
                if refused != nil {
                    // Refused because of one of its groups: find it by halves (the second half waits on the stack).
                    let half = next.startIndex + next.count / 2
                    pending.append(next[half...])
                    pending.append(next[..<half])
                    continue
                }
                if result.unavailable != nil {
                    // The service cannot be reached: the whole batch goes back, looked up first (a group sent before
                    // may have been applied).
                    result.state = .sending
                    return result
                }
                if records.contains(where: { $0.status == .unknown }) { inDoubt = true }
                result.records += records
            }
        } catch {
            result.cancelled = true
            return result
        }
        result.state = inDoubt ? .sending : .done
        return result
    }

    /// Sends `groups` in one atomic request. Returns each edit's record, or, when the service refused the request and
    /// there is more than one group, no records and the refusal (to be split).
    private func settle(
        _ groups: [[JournalEdit]], files: [Int: [AttachmentAdd]], into result: inout BatchResult
    ) async throws -> (records: [EditRecord], refused: ArcGISError?) {
        let (edits, sent, unsendable) = atomicRequest(groups, files: files)
        guard !sent.isEmpty else { return (unsendable, nil) }
        let outcome = try await service.applyAtomically(edits, retry: retry, uploads: uploadOptions)
        result.count(outcome.attempts)
        if case .rejected(let error) = outcome.status, groups.count > 1 { return ([], error) }
        let answered = try await records(of: outcome, sent: sent, files: edits.attachments, into: &result)
        return (unsendable + answered, nil)
    }

    /// The atomic request of `groups`: the adds by layer with their files, the edits that go, and the records of those
    /// that cannot (a group goes whole or not at all: one unreadable record holds its whole group back).
    private func atomicRequest(
        _ groups: [[JournalEdit]], files: [Int: [AttachmentAdd]]
    ) -> (AtomicAdds, sent: [JournalEdit], unsendable: [EditRecord]) {
        var edits = AtomicAdds(adds: [:], globalIdFields: [:], objectIdFields: [:])
        var records: [EditRecord] = []
        var sent: [JournalEdit] = []
        var unreadable: Set<Int> = []
        var features: [Int: Feature] = [:]
        for edit in groups.joined() {
            if let value = try? JSONReader.parse(edit.planned.payload), let feature = try? EsriJSONFeature.feature(value) {
                features[edit.planned.position.index] = feature
            } else {
                unreadable.insert(edit.planned.group ?? edit.planned.position.index)
            }
        }
        for edit in groups.joined() {
            guard let feature = features[edit.planned.position.index], !unreadable.contains(edit.planned.group ?? edit.planned.position.index) else {
                records.append(
                    EditRecord(
                        index: edit.planned.position.index, status: .rejected,
                        reason: features[edit.planned.position.index] == nil
                            ? "the journal's copy of the edit is unreadable"
                            : "a record of its group is unreadable in the journal, so the group is not sent"))
                continue
            }
            let layer = edit.planned.layer
            edits.adds[layer, default: []].append(feature)
            edits.globalIdFields[layer] = keys[layer]?.globalIdField ?? "GlobalID"
            edits.objectIdFields[layer] = keys[layer]?.objectIdField ?? "OBJECTID"
            edits.attachments += files[edit.planned.position.index] ?? []
            sent.append(edit)
        }
        return (edits, sent, records)
    }

    /// The records of the edits `sent` in one atomic request (with `sentFiles`) after the service's `outcome`; a
    /// refusal here is of one group alone.
    private func records(
        of outcome: AtomicAddsOutcome, sent: [JournalEdit], files sentFiles: [AttachmentAdd], into result: inout BatchResult
    ) async throws -> [EditRecord] {
        func objectId(_ edit: JournalEdit) -> Int64? {
            edit.planned.globalId.flatMap { outcome.objectIds[edit.planned.layer]?[$0] }
        }
        func filesSettled(_ status: EditStatus, _ reason: String? = nil) {
            result.files += sentFiles.map { FileRecord(globalId: $0.globalId, status: status, reason: reason) }
        }
        switch outcome.status {
        case .applied:
            filesSettled(.applied)
            return sent.map { EditRecord(index: $0.planned.position.index, status: .applied, objectId: objectId($0)) }
        case .appliedEarlier:
            // The features were there already: their files too if an earlier attempt of this request put them there,
            // not if an earlier run went without them.
            result.files += try await settleFiles(sentFiles, parents: outcome.objectIds, into: &result)
            result.alreadyPresent += sent.count
            return sent.map {
                EditRecord(
                    index: $0.planned.position.index, status: .applied, objectId: objectId($0),
                    reason: "already in the service (its GlobalID was there)")
            }
        case .rejected(let error):
            let parent = sent[0].planned.group ?? sent[0].planned.position.index
            filesSettled(.rejected, "refused with its group (record \(parent + 1))")
            return Self.refused(sent, parent: parent, error, alreadyPresent: outcome.alreadyPresent > 0, objectId: objectId)
        case .failed(let reason):
            result.unavailable = outage(after: outcome.lastFailure)
            filesSettled(.failed, reason)
            return sent.map { EditRecord(index: $0.planned.position.index, status: .failed, reason: "failed after retries: \(reason)") }
        case .unknown(let reason):
            // Whether it arrived could not be checked either: looked up once the service answers.
            result.unavailable = outage(after: outcome.lastFailure)
            filesSettled(.unknown, reason)
            return sent.map { edit in
                objectId(edit).map { EditRecord(index: edit.planned.position.index, status: .applied, objectId: $0) }
                    ?? EditRecord(index: edit.planned.position.index, status: .unknown, reason: reason)
            }
        }
    }

    /// The records of a group the service refused: its edits already in the service applied (that is why the group
    /// could not be added again), the others rejected with the reason.
    private static func refused(
        _ sent: [JournalEdit], parent: Int, _ error: ArcGISError, alreadyPresent: Bool, objectId: (JournalEdit) -> Int64?
    ) -> [EditRecord] {
        let message = error.message + (error.details.isEmpty ? "" : ": " + error.details.joined(separator: "; "))
        return sent.map { edit in
            if let objectId = objectId(edit) {
                return EditRecord(index: edit.planned.position.index, status: .applied, objectId: objectId, reason: "already in the service")
            }
            let reason =
                alreadyPresent
                ? "part of its group (record \(parent + 1)) is in the service already, so the rest cannot be added with it: \(message)"
                : "refused with its group (record \(parent + 1)), which arrives whole or not at all: \(message)"
            return EditRecord(index: edit.planned.position.index, status: .rejected, code: error.code, reason: reason)
        }
    }

    /// Settles the files of features found in the service (`parents`: objectIds by layer and GlobalID): those already
    /// attached count as applied; the missing ones are attached to their features now, in one atomic request.
    func settleFiles(_ files: [AttachmentAdd], parents: [Int: [String: Int64]], into result: inout BatchResult) async throws -> [FileRecord] {
        guard !files.isEmpty else { return [] }
        var present: Set<String> = []
        do {
            for layer in Set(files.map(\.layer)).sorted() {
                let objectIds = Array((parents[layer] ?? [:]).values)
                var start = 0
                while start < objectIds.count {
                    let chunk = Array(objectIds[start..<min(start + 500, objectIds.count)])
                    start += chunk.count
                    for group in try await service.layer(id: layer).queryAttachments(objectIds: chunk, retry: retry).attachmentGroups {
                        for info in group.attachmentInfos ?? [] { if let id = info.globalId.flatMap(GlobalID.normalized) { present.insert(id) } }
                    }
                }
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return files.map {
                FileRecord(
                    globalId: $0.globalId, status: .unknown,
                    reason: "its feature is in the service; whether the file is could not be checked: \(error)")
            }
        }
        var records = files.filter { present.contains(GlobalID.normalized($0.globalId) ?? $0.globalId) }.map {
            FileRecord(globalId: $0.globalId, status: .applied, reason: "attached already")
        }
        let missing = files.filter { !present.contains(GlobalID.normalized($0.globalId) ?? $0.globalId) }
        guard !missing.isEmpty else { return records }
        let outcome = try await service.applyAtomically(
            AtomicAdds(adds: [:], globalIdFields: [:], objectIdFields: [:], attachments: missing), retry: retry, uploads: uploadOptions)
        result.count(outcome.attempts)
        let (status, reason): (EditStatus, String?)
        switch outcome.status {
        case .applied, .appliedEarlier: (status, reason) = (.applied, "attached to its feature, which was in the service already")
        case .rejected(let error): (status, reason) = (.rejected, "refused for its feature, which was in the service already: \(error.message)")
        case .failed(let why): (status, reason) = (.failed, why)
        case .unknown(let why): (status, reason) = (.unknown, why)
        }
        records += missing.map { FileRecord(globalId: $0.globalId, status: status, reason: reason) }
        return records
    }
}

extension BatchApplier.BatchResult {
    /// Adds `attempts` to the requests, retries and time backing off.
    mutating func count(_ attempts: [Attempt]) {
        requests += attempts.filter { $0.purpose == .request }.count
        retries += attempts.retryCount
        backoff += attempts.totalBackoff
    }
}
