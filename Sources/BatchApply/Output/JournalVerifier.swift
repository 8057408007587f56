import FeatureModel
package import FeatureServiceClient

/// Checks a journal against the service: every applied add is there exactly once with the objectId recorded, no add
/// that did not apply is there, and every applied delete is gone; an add that a later delete of the same input removed,
/// and a delete whose GlobalID a later add of the input used again, are checked as the later edit left them.
package struct JournalVerifier: Sendable {
    package let journal: ApplyJournal
    package let service: FeatureService
    /// How each query is retried: as an apply's requests are, by default.
    package let retry: RetryPolicy

    package init(journal: ApplyJournal, service: FeatureService, retry: RetryPolicy = BatchApplier.defaultRetry) {
        self.journal = journal
        self.service = service
        self.retry = retry
    }

    /// What the check found.
    package struct Finding: Sendable, Hashable, Codable {
        /// Applied adds checked, and how many of them were found once, missing, or more than once.
        package var appliedAdds = 0
        package var foundOnce = 0
        package var missing = 0
        package var duplicated = 0
        /// Applied adds found under another objectId than the one recorded.
        var otherObjectId = 0
        /// Applied edits that a later applied edit of the same feature in the input superseded (an add, then its delete;
        /// a delete by GlobalID, then an add with that GlobalID): checked through the later edit, not on their own.
        package var superseded = 0
        /// Adds that did not apply (rejected, or failed after every retry) and whether any is there after all.
        var unappliedAdds = 0
        var unappliedPresent = 0
        /// Adds the journal has not settled (an apply stopped, by a crash or Ctrl-C, before their answers came or
        /// before it sent them), and how many of them the service holds: neither is a mismatch, the job is unfinished,
        /// and `apply --resume` records those there as applied and sends the rest.
        var unsettledAdds = 0
        var unsettledPresent = 0
        /// Applied deletes checked, and how many of them are still there.
        package var appliedDeletes = 0
        package var deletesPresent = 0
        /// A few GlobalIDs or objectIds of each kind of mismatch, for the message.
        package var examples: [String] = []

        /// Whether the service holds exactly what the journal says (of what it settled).
        package var passed: Bool { missing == 0 && duplicated == 0 && otherObjectId == 0 && unappliedPresent == 0 && deletesPresent == 0 }

        /// Whether the journal settled every edit: false after an apply that stopped before it finished.
        package var complete: Bool { unsettledAdds == 0 }

        /// One line for people.
        package var summary: String {
            var line = "\(foundOnce) of \(appliedAdds) applied \(appliedAdds == 1 ? "add" : "adds") found once"
            if superseded > 0 { line += " (\(superseded) \(superseded == 1 ? "edit" : "edits") superseded by later edits of the input)" }
            if missing > 0 { line += ", \(missing) missing" }
            if duplicated > 0 { line += ", \(duplicated) more than once" }
            if otherObjectId > 0 { line += ", \(otherObjectId) under another objectId than recorded" }
            line += "; \(unappliedAdds - unappliedPresent) of \(unappliedAdds) adds that did not apply absent"
            if appliedDeletes > 0 { line += "; \(appliedDeletes - deletesPresent) of \(appliedDeletes) deletes gone" }
            if !passed { return line + ": MISMATCH" + (examples.isEmpty ? "" : " (e.g. " + examples.prefix(5).joined(separator: ", ") + ")") }
            guard !complete else { return line + ": ok" }
            return line
                + "; \(unsettledAdds) \(unsettledAdds == 1 ? "add" : "adds") in doubt or not sent (the apply stopped before it settled them): "
                + "\(unsettledPresent) already in the service, \(unsettledAdds - unsettledPresent) not. INCOMPLETE: `featureload apply --resume` "
                + "records those there as applied and sends the rest"
        }
    }

    /// Queries the service for every edit the journal settled, 500 keys at a time, each query retried with ``retry``.
    /// - Throws: ``FeatureServiceError`` when a query fails after its retries; ``ApplyError/journal(_:)``.
    package func verify() async throws -> Finding {
        let header = try journal.header()
        var gathered = ExpectedFeatures()
        try journal.forEachEdit(in: EditStatus.allCases) { gathered.note($0) }
        let expected = gathered.expectation()
        var finding = Finding()
        finding.superseded = expected.superseded
        try await checkAppliedAdds(expected.appliedAdds, header: header, into: &finding)
        for (layerId, ids) in expected.unappliedAdds {
            let rows = try await globalIdRows(layer: layerId, ids, header: header)
            finding.unappliedAdds += ids.count
            for id in ids where rows[id] != nil {
                finding.unappliedPresent += 1
                finding.examples.append("\(id) did not apply but is there")
            }
        }
        for (layerId, ids) in expected.unsettledAdds {
            let rows = try await globalIdRows(layer: layerId, ids, header: header)
            finding.unsettledAdds += ids.count
            finding.unsettledPresent += ids.reduce(0) { $0 + (rows[$1] == nil ? 0 : 1) }
        }
        try await checkDeletes(expected, header: header, into: &finding)
        return finding
    }

    /// Counts each applied add found once (under its recorded objectId), missing, or more than once.
    private func checkAppliedAdds(_ applied: [Int: [ExpectedFeatures.Add]], header: JournalHeader, into finding: inout Finding) async throws {
        for (layerId, adds) in applied {
            let rows = try await globalIdRows(layer: layerId, adds.map(\.globalId), header: header)
            for add in adds {
                finding.appliedAdds += 1
                let found = rows[add.globalId] ?? []
                switch found.count {
                case 0:
                    finding.missing += 1
                    finding.examples.append("missing \(add.globalId)")
                case 1:
                    finding.foundOnce += 1
                    if let objectId = add.objectId, found[0] != objectId {
                        finding.otherObjectId += 1
                        finding.examples.append("\(add.globalId) is objectId \(found[0]), recorded \(objectId)")
                    }
                default:
                    finding.duplicated += 1
                    finding.examples.append("\(add.globalId) \(found.count) times")
                }
            }
        }
    }

    /// Counts the applied deletes, by objectId and by GlobalID, whose features are still there.
    private func checkDeletes(_ expected: ExpectedFeatures.Expectation, header: JournalHeader, into finding: inout Finding) async throws {
        for (layerId, ids) in expected.deletedObjectIds {
            let layer = service.layer(id: layerId)
            finding.appliedDeletes += ids.count
            var start = 0
            while start < ids.count {
                let chunk = Array(ids[start..<min(start + 500, ids.count)])
                start += chunk.count
                finding.deletesPresent += try await layer.count(objectIds: chunk, retry: retry).value
            }
        }
        for (layerId, ids) in expected.deletedGlobalIds {
            finding.appliedDeletes += ids.count
            finding.deletesPresent += try await globalIdRows(layer: layerId, ids, header: header).values.reduce(0) { $0 + $1.count }
        }
    }

    /// The rows of layer `id` holding each of `globalIds`.
    private func globalIdRows(layer id: Int, _ globalIds: [String], header: JournalHeader) async throws -> [String: [Int64]] {
        let info = try await service.layerInfo(id: id, retry: retry)
        return try await service.layer(id: id).objectIds(
            forGlobalIds: globalIds, globalIdField: info.globalIdField ?? header.globalIdField, objectIdField: info.objectIdField, retry: retry)
    }
}
