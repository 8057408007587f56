public import FeatureServiceClient
import FeatureModel

/// Checks a journal against the service: every applied add is there exactly once with the objectId recorded, no add
/// that did not apply is there, and every applied delete is gone; an add that a later delete of the same input removed,
/// and a delete whose GlobalID a later add of the input used again, are checked as the later edit left them.
public struct JournalVerifier: Sendable {
    public let journal: ApplyJournal
    public let service: FeatureService
    /// How each query is retried: as an apply's requests are, by default.
    public let retry: RetryPolicy

    public init(journal: ApplyJournal, service: FeatureService, retry: RetryPolicy = BatchApplier.defaultRetry) {
        self.journal = journal
        self.service = service
        self.retry = retry
    }

    /// What the check found.
    public struct Finding: Sendable, Hashable, Codable {
        /// Applied adds checked, and how many of them were found once, missing, or more than once.
        public var appliedAdds = 0
        public var foundOnce = 0
        public var missing = 0
        public var duplicated = 0
        /// Applied adds found under another objectId than the one recorded.
        public var otherObjectId = 0
        /// Applied edits that a later applied edit of the same feature in the input superseded (an add, then its delete;
        /// a delete by GlobalID, then an add with that GlobalID): checked through the later edit, not on their own.
        public var superseded = 0
        /// Adds that did not apply (rejected, failed, unknown) and whether any is there after all.
        public var unappliedAdds = 0
        public var unappliedPresent = 0
        /// Applied deletes checked, and how many of them are still there.
        public var appliedDeletes = 0
        public var deletesPresent = 0
        /// A few GlobalIDs or objectIds of each kind of mismatch, for the message.
        public var examples: [String] = []

        /// Whether the service holds exactly what the journal says.
        public var passed: Bool { missing == 0 && duplicated == 0 && otherObjectId == 0 && unappliedPresent == 0 && deletesPresent == 0 }

        /// One line for people.
        public var summary: String {
            var line = "\(foundOnce) of \(appliedAdds) applied \(appliedAdds == 1 ? "add" : "adds") found once"
            if superseded > 0 { line += " (\(superseded) \(superseded == 1 ? "edit" : "edits") superseded by later edits of the input)" }
            if missing > 0 { line += ", \(missing) missing" }
            if duplicated > 0 { line += ", \(duplicated) more than once" }
            if otherObjectId > 0 { line += ", \(otherObjectId) under another objectId than recorded" }
            line += "; \(unappliedAdds - unappliedPresent) of \(unappliedAdds) adds that did not apply absent"
            if appliedDeletes > 0 { line += "; \(appliedDeletes - deletesPresent) of \(appliedDeletes) deletes gone" }
            return line + (passed ? ": ok" : ": MISMATCH" + (examples.isEmpty ? "" : " (e.g. " + examples.prefix(5).joined(separator: ", ") + ")"))
        }
    }

    /// Queries the service for every edit the journal settled, 500 keys at a time, each query retried with ``retry``.
    /// - Throws: ``FeatureServiceError`` when a query fails after its retries; ``ApplyError/journal(_:)``.
    public func verify() async throws -> Finding {
        let header = try journal.header()
        var finding = Finding()
        var applied: [Int: [(globalId: String, objectId: Int64?, position: Int)]] = [:]
        var unapplied: [Int: [String]] = [:]
        var deletedIds: [Int: [Int64]] = [:]
        var deletedGlobalIds: [Int: [String]] = [:]
        // The last applied delete of each key, and the last applied add of each GlobalID, by input position (edits come in
        // input order, so the last one seen).
        var lastDeleteById: [Int: [Int64: Int]] = [:]
        var lastDeleteByGlobalId: [Int: [String: Int]] = [:]
        var lastAddByGlobalId: [Int: [String: Int]] = [:]
        var deletedGlobalIdPositions: [Int: [(globalId: String, position: Int)]] = [:]
        try journal.forEachEdit(in: EditStatus.allCases) { edit in
            let layer = edit.planned.layer
            let position = edit.planned.position.index
            switch (edit.planned.kind, edit.status) {
            case (.add, .applied):
                if let id = edit.planned.globalId {
                    applied[layer, default: []].append((id, edit.resultObjectId, position))
                    lastAddByGlobalId[layer, default: [:]][id] = position
                }
            case (.add, _):
                if let id = edit.planned.globalId { unapplied[layer, default: []].append(id) }
            case (.delete, .applied):
                if let id = edit.planned.objectId {
                    deletedIds[layer, default: []].append(id)
                    lastDeleteById[layer, default: [:]][id] = position
                } else if let id = edit.planned.globalId {
                    deletedGlobalIdPositions[layer, default: []].append((id, position))
                    lastDeleteByGlobalId[layer, default: [:]][id] = position
                }
            default: break
            }
        }
        for (layerId, deletes) in deletedGlobalIdPositions {
            // A delete whose GlobalID a later add of the input used again is not expected to leave it gone.
            let kept = deletes.filter { delete in (lastAddByGlobalId[layerId]?[delete.globalId] ?? -1) < delete.position }
            finding.superseded += deletes.count - kept.count
            if !kept.isEmpty { deletedGlobalIds[layerId] = kept.map(\.globalId) }
        }
        for (layerId, all) in applied {
            // An add that a later delete of the input removed is not expected to be there.
            let adds = all.filter { add in
                let byGlobalId = lastDeleteByGlobalId[layerId]?[add.globalId].map { $0 > add.position } ?? false
                let byObjectId = add.objectId.flatMap { lastDeleteById[layerId]?[$0] }.map { $0 > add.position } ?? false
                return !(byGlobalId || byObjectId)
            }
            finding.superseded += all.count - adds.count
            if adds.isEmpty { continue }
            let rows = try await globalIdRows(layer: layerId, adds.map(\.globalId), header: header)
            for (globalId, objectId, _) in adds {
                finding.appliedAdds += 1
                let found = rows[globalId] ?? []
                switch found.count {
                case 0:
                    finding.missing += 1
                    finding.examples.append("missing \(globalId)")
                case 1:
                    finding.foundOnce += 1
                    if let objectId, found[0] != objectId {
                        finding.otherObjectId += 1
                        finding.examples.append("\(globalId) is objectId \(found[0]), recorded \(objectId)")
                    }
                default:
                    finding.duplicated += 1
                    finding.examples.append("\(globalId) \(found.count) times")
                }
            }
        }
        for (layerId, ids) in unapplied {
            let rows = try await globalIdRows(layer: layerId, ids, header: header)
            finding.unappliedAdds += ids.count
            for id in ids where rows[id] != nil {
                finding.unappliedPresent += 1
                finding.examples.append("\(id) did not apply but is there")
            }
        }
        for (layerId, ids) in deletedIds {
            let layer = service.layer(id: layerId)
            finding.appliedDeletes += ids.count
            var start = 0
            while start < ids.count {
                let chunk = Array(ids[start..<min(start + 500, ids.count)])
                start += chunk.count
                finding.deletesPresent += try await layer.count(objectIds: chunk, retry: retry).value
            }
        }
        for (layerId, ids) in deletedGlobalIds {
            finding.appliedDeletes += ids.count
            finding.deletesPresent += try await globalIdRows(layer: layerId, ids, header: header).values.reduce(0) { $0 + $1.count }
        }
        return finding
    }

    /// The rows of layer `id` holding each of `globalIds`.
    private func globalIdRows(layer id: Int, _ globalIds: [String], header: JournalHeader) async throws -> [String: [Int64]] {
        let info = try await service.layerInfo(id: id, retry: retry)
        return try await service.layer(id: id).objectIds(
            forGlobalIds: globalIds, globalIdField: info.globalIdField ?? header.globalIdField, objectIdField: info.objectIdField, retry: retry)
    }
}
