import GRDB

/// A journal this featureload can trust: every edit's status and every batch's state is one it knows.
extension ApplyJournal {
    /// Refuses a journal with an edit status or batch state this featureload does not know (written by another
    /// version, or changed by hand): which of its edits are applied cannot be told, and taking such an edit as settled
    /// would end a resume with edits never sent.
    /// - Throws: ``ApplyError/journal(_:)`` naming the first such edit or batch and how many there are.
    static func checkStatuses(_ database: DatabaseQueue, path: String) throws {
        let statuses = "(" + EditStatus.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"
        let states = "('planned', 'sending', 'done')"
        let (edit, edits, batch, batches) = try database.read { db in
            (
                try Row.fetchOne(db, sql: "SELECT position, status FROM edit WHERE status NOT IN \(statuses) ORDER BY position LIMIT 1"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM edit WHERE status NOT IN \(statuses)") ?? 0,
                try Row.fetchOne(db, sql: "SELECT id, state FROM batch WHERE state NOT IN \(states) ORDER BY id LIMIT 1"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM batch WHERE state NOT IN \(states)") ?? 0
            )
        }
        let fix =
            "which of its edits are applied cannot be told, so it is not resumed. Fix: start a new run with a new --journal (adds already in the service are found by their GlobalIDs and not added again)"
        if let edit {
            let position: Int = edit[0]
            let status: String? = edit[1]
            throw ApplyError.journal(
                "\(path): the edit of record \(position + 1) has the status '\(status ?? "null")', which this featureload does not know"
                    + (edits > 1 ? " (and \(edits - 1) more edits)" : "") + "; \(fix)")
        }
        if let batch {
            let id: Int = batch[0]
            let state: String? = batch[1]
            throw ApplyError.journal(
                "\(path): batch \(id) has the state '\(state ?? "null")', which this featureload does not know"
                    + (batches > 1 ? " (and \(batches - 1) more batches)" : "") + "; \(fix)")
        }
    }
}
