public import FeatureServiceClient
import FeatureModel

/// Checks a journal against the service: every applied add is there exactly once with the objectId recorded, no
/// add that did not apply is there, and every applied delete is gone.
public struct JournalVerifier: Sendable {
    public let journal: ApplyJournal
    public let service: FeatureService

    public init(journal: ApplyJournal, service: FeatureService) {
        self.journal = journal
        self.service = service
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
            var line = "\(foundOnce) of \(appliedAdds) applied adds found once"
            if missing > 0 { line += ", \(missing) missing" }
            if duplicated > 0 { line += ", \(duplicated) more than once" }
            if otherObjectId > 0 { line += ", \(otherObjectId) under another objectId than recorded" }
            line += "; \(unappliedAdds - unappliedPresent) of \(unappliedAdds) adds that did not apply absent"
            if appliedDeletes > 0 { line += "; \(appliedDeletes - deletesPresent) of \(appliedDeletes) deletes gone" }
            return line + (passed ? ": ok" : ": MISMATCH" + (examples.isEmpty ? "" : " (e.g. " + examples.prefix(5).joined(separator: ", ") + ")"))
        }
    }

    /// Queries the service for every edit the journal settled, 500 keys at a time.
    /// - Throws: ``FeatureServiceError`` when a query fails; ``ApplyError/journal(_:)``.
    public func verify() async throws -> Finding {
        let header = try journal.header()
        var finding = Finding()
        var applied: [Int: [(globalId: String, objectId: Int64?)]] = [:]
        var unapplied: [Int: [String]] = [:]
        var deletedIds: [Int: [Int64]] = [:]
        var deletedGlobalIds: [Int: [String]] = [:]
        try journal.forEachEdit(in: EditStatus.allCases) { edit in
            let layer = edit.planned.layer
            switch (edit.planned.kind, edit.status) {
            case (.add, .applied):
                if let id = edit.planned.globalId { applied[layer, default: []].append((id, edit.resultObjectId)) }
            case (.add, _):
                if let id = edit.planned.globalId { unapplied[layer, default: []].append(id) }
            case (.delete, .applied):
                if let id = edit.planned.objectId { deletedIds[layer, default: []].append(id) } else if let id = edit.planned.globalId { deletedGlobalIds[layer, default: []].append(id) }
            default: break
            }
        }
        for (layerId, adds) in applied {
            let rows = try await globalIdRows(layer: layerId, adds.map(\.globalId), header: header)
            for (globalId, objectId) in adds {
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
                finding.deletesPresent += try await layer.count(objectIds: chunk)
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
        let info = try await service.layerInfo(id: id)
        return try await service.layer(id: id).objectIds(
            forGlobalIds: globalIds, globalIdField: info.globalIdField ?? header.globalIdField, objectIdField: info.objectIdField)
    }
}
