import FeatureServiceClient
import Foundation
import GRDB
import SQLiteSupport

/// Sending: batches marked and read back for sending (from memory when this process planned them), and the outcomes
/// of edits and files recorded.
extension ApplyJournal {
    /// The files to attach to the open adds of batches `ids`.
    static func attachments(_ db: Database, batches list: String) throws -> [Int: [PlannedAttachment]] {
        var byBatch: [Int: [PlannedAttachment]] = [:]
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT edit.batch, attachment.position, attachment.layer, attachment.globalId, attachment.parentGlobalId, attachment.file,
                    attachment.name, attachment.contentType
                FROM attachment JOIN edit ON edit.position = attachment.position
                WHERE edit.batch IN (\(list)) AND edit.status IN \(Self.openStatuses)
                ORDER BY attachment.position, attachment.globalId
                """)
        for row in rows {
            let add = AttachmentAdd(layer: row[2], globalId: row[3], parentGlobalId: row[4], file: row[5], name: row[6], contentType: row[7])
            byBatch[row[0], default: []].append(PlannedAttachment(position: row[1], add: add))
        }
        return byBatch
    }

    /// Records what became of files, by their GlobalIDs.
    package func record(files: [FileRecord]) throws {
        guard !files.isEmpty else { return }
        try database.write { db in try Self.write(files: files, db) }
    }

    static func write(files: [FileRecord], _ db: Database) throws {
        guard !files.isEmpty else { return }
        let statement = try db.cachedStatement(sql: "UPDATE attachment SET status = ?, reason = ? WHERE globalId = ?")
        for file in files { try statement.execute(arguments: [file.status.rawValue, file.reason, file.globalId]) }
    }

    /// The ids of the batches with open edits, in order, each with its state.
    package func openBatches() throws -> [(id: Int, state: JournalBatch.State)] {
        try database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, state FROM batch
                    WHERE state != 'done' OR EXISTS (SELECT 1 FROM edit WHERE edit.batch = batch.id AND status IN \(Self.openStatuses))
                    ORDER BY id
                    """
            ).map { row in (row["id"], JournalBatch.State(rawValue: row["state"]) ?? .planned) }
        }
    }

    /// The number of edits still open (pending, failed or of unknown outcome).
    package func openEditCount() throws -> Int {
        try database.read { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT (SELECT count(*) FROM edit WHERE status IN \(Self.openStatuses))
                        + (SELECT coalesce(sum(pack.count), 0) FROM pack JOIN batch ON batch.id = pack.batch WHERE batch.applied IS NULL)
                    """)
        } ?? 0
    }

    /// Batch `id` with its open edits.
    package func batch(_ id: Int) throws -> JournalBatch {
        try database.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT layer, useGlobalIds, state, atomic, barrier FROM batch WHERE id = ?", arguments: [id])
            else {
                throw ApplyError.journal("the journal has no batch \(id)")
            }
            var pages = TextPages()
            let rows = try Row.fetchAll(
                db, sql: "SELECT \(Self.editColumns) FROM edit WHERE batch = ? AND status IN \(Self.openStatuses) ORDER BY position", arguments: [id]
            ).map { row in try Self.edit(row, pages: &pages, db) }
            let packed = try Self.packedEdits(db, where: "pack.batch = ? AND batch.applied IS NULL", arguments: [id], texts: .both)
            let edits = packed.isEmpty ? rows : (rows + packed).sorted { $0.planned.position.index < $1.planned.position.index }
            return JournalBatch(
                id: id, layer: row["layer"], useGlobalIds: row["useGlobalIds"], state: JournalBatch.State(rawValue: row["state"]) ?? .planned,
                edits: edits, atomic: row["atomic"], attachments: row["atomic"] ? try Self.attachments(db, batches: String(id))[id] ?? [] : [],
                barrier: row["barrier"])
        }
    }

    /// The columns ``edit(_:)`` reads, in its order (by position: looking columns up by name cost as much as the rest).
    static let editColumns =
        "edit.position, edit.line, edit.sourceTable, edit.batch, edit.kind, edit.layer, edit.globalId, edit.objectId, edit.payload, edit.source, "
        + "edit.status, edit.resultObjectId, edit.code, edit.reason, edit.grp, edit.text, edit.slot"

    /// The edit of a row of ``editColumns``, its texts read from their page when they are kept in one.
    static func edit(_ row: Row, pages: inout TextPages, _ db: Database) throws -> JournalEdit {
        let position = InputPosition(index: row[0], line: row[1], table: row[2])
        var (payload, source): (String, String) = (row[8], row[9])
        if let page: Int64 = row[15] { (payload, source) = try pages.texts(db, page: page, slot: row[16] as Int?) }
        let planned = PlannedEdit(
            position: position, kind: InputEdit.Kind(rawValue: row[4]) ?? .add, layer: row[5], globalId: row[6], objectId: row[7], payload: payload,
            source: source, group: row[14])
        return JournalEdit(
            planned: planned, batch: row[3] ?? -1, status: EditStatus(rawValue: row[10]) ?? .pending, resultObjectId: row[11], code: row[12],
            reason: row[13])
    }

    /// Marks batches `ids` as being sent and reads them with their open edits (see ``readForSending(_:)``), in one
    /// transaction: in doubt until their outcomes are recorded. A batch with no open edit is not marked, and comes
    /// back without edits.
    package func startSending(_ ids: [Int]) throws -> [JournalBatch] {
        try read(ids, marking: true)
    }

    /// Reads batches `ids` with their open edits (each edit's position without its line or table, its input text left
    /// empty, and no earlier outcome but its status), to be marked with ``markSending(_:after:files:)`` one by one as
    /// their requests go out. A batch with no open edit comes back without edits.
    func readForSending(_ ids: [Int]) throws -> [JournalBatch] {
        try read(ids, marking: false)
    }

    private func read(_ ids: [Int], marking: Bool) throws -> [JournalBatch] {
        guard !ids.isEmpty else { return [] }
        let list = ids.map(String.init).joined(separator: ",")
        // Batches this process planned, all of whose rows it wrote, come from memory: every edit of them is open.
        var kept: [Int: [JournalEdit]] = [:]
        for id in ids { kept[id] = plannedBatches.take(id) }
        let unkept = ids.filter { kept[$0] == nil }.map(String.init).joined(separator: ",")
        return try database.write { db in
            if marking {
                try db.execute(
                    sql: """
                        UPDATE batch SET state = 'sending', sends = sends + 1
                        WHERE id IN (\(list)) AND (
                        EXISTS (SELECT 1 FROM edit WHERE edit.batch = batch.id AND status IN \(Self.openStatuses))
                            OR (applied IS NULL AND EXISTS (SELECT 1 FROM pack WHERE pack.batch = batch.id)))
                        """)
            }
            var batches: [Int: JournalBatch] = [:]
            var anyAtomic = false
            for row in try Row.fetchAll(db, sql: "SELECT id, layer, useGlobalIds, state, atomic, barrier FROM batch WHERE id IN (\(list))") {
                let id: Int = row[0]
                batches[id] = JournalBatch(
                    id: id, layer: row[1], useGlobalIds: row[2], state: JournalBatch.State(rawValue: row[3]) ?? .sending, edits: [], atomic: row[4],
                    barrier: row[5])
                if row[4] { anyAtomic = true }
            }
            if anyAtomic {
                for (id, attachments) in try Self.attachments(db, batches: list) { batches[id]?.attachments = attachments }
            }
            for (id, edits) in kept { batches[id]?.edits = edits }
            // The others' open edits: only what sending needs, decoded as the rows are stepped through (reading whole
            // rows, the input text above all, was most of what a window cost).
            let rows =
                unkept.isEmpty
                ? nil
                : try Row.fetchCursor(
                    db,
                    sql: """
                        SELECT position, batch, kind, layer, globalId, objectId, payload, grp, status, text, slot FROM edit
                        WHERE batch IN (\(unkept)) AND status IN \(Self.openStatuses) ORDER BY position
                        """)
            var pages = TextPages()
            var packed: [Int: [JournalEdit]] = [:]
            if !unkept.isEmpty {
                for var edit in try Self.packedEdits(db, where: "pack.batch IN (\(unkept)) AND batch.applied IS NULL", texts: .payload) {
                    edit.planned.position = InputPosition(index: edit.planned.position.index)
                    packed[edit.batch, default: []].append(edit)
                }
            }
            while let row = try rows?.next() {
                var payload: String = row[6]
                if let page: Int64 = row[9] { payload = try pages.payload(db, page: page, slot: row[10] as Int?) }
                let planned = PlannedEdit(
                    position: InputPosition(index: row[0]), kind: InputEdit.Kind(rawValue: row[2]) ?? .add, layer: row[3], globalId: row[4],
                    objectId: row[5], payload: payload, source: "", group: row[7])
                let batch: Int = row[1]
                batches[batch]?.edits.append(JournalEdit(planned: planned, batch: batch, status: EditStatus(rawValue: row[8]) ?? .pending))
            }
            return try ids.map { id in
                guard var batch = batches[id] else { throw ApplyError.journal("the journal has no batch \(id)") }
                if let edits = packed[id] {
                    batch.edits = batch.edits.isEmpty ? edits : (batch.edits + edits).sorted { $0.planned.position.index < $1.planned.position.index }
                }
                return batch
            }
        }
    }

    /// Marks batch `id` as being sent: in doubt until its outcomes are recorded.
    package func markSending(_ id: Int) throws {
        try markSending(id, after: [], files: [])
    }

    /// Writes `outcomes` and `files` (of batches that came back), then marks batch `id` as being sent, in one
    /// transaction, just before its request goes out: so a batch is in doubt from then until its outcome is written,
    /// and the batches in doubt after a crash are at most those whose requests were out (``record(_:)``).
    func markSending(_ id: Int, after outcomes: [(batch: Int, records: [EditRecord], state: JournalBatch.State)], files: [FileRecord]) throws {
        _ = plannedBatches.take(id)
        for outcome in outcomes { _ = plannedBatches.take(outcome.batch) }
        try database.write { db in
            try Self.write(files: files, db)
            try Self.write(outcomes, db)
            // A cached statement: compiling it again for every batch (SQLite's parser and GRDB's authorizer) was as
            // much as the rest of the transaction.
            try db.cachedStatement(sql: "UPDATE batch SET state = 'sending', sends = sends + 1 WHERE id = ?").execute(arguments: [id])
        }
    }

    /// Puts batches marked as being sent, whose requests never went out (a run stopped with them still waiting their
    /// turn), back to planned, so that a resume need not look them up first.
    func unmarkUnsent(_ ids: [Int]) throws {
        guard !ids.isEmpty else { return }
        try database.write { db in
            let statement = try db.cachedStatement(
                sql: "UPDATE batch SET state = 'planned', sends = max(0, sends - 1) WHERE id = ? AND state = 'sending'")
            for id in ids { try statement.execute(arguments: [id]) }
        }
    }

    /// Records what became of edits of batch `id`, and the batch's new state, in one transaction.
    /// - Parameters:
    ///   - records: The outcomes; edits not named keep theirs.
    ///   - state: `done` once every edit of the batch has an outcome; `sending` keeps it in doubt (an edit of
    ///     unknown outcome); `planned` when nothing of it can have been applied.
    package func record(batch id: Int, _ records: [EditRecord], state: JournalBatch.State) throws {
        try record([(id, records, state)])
    }

    /// Records the outcomes of several batches in one transaction (see ``record(batch:_:state:)``).
    package func record(_ outcomes: [(batch: Int, records: [EditRecord], state: JournalBatch.State)]) throws {
        guard !outcomes.isEmpty else { return }
        // A batch with an outcome is no longer all open: never sent from memory again (sending takes it out anyway).
        for outcome in outcomes { _ = plannedBatches.take(outcome.batch) }
        try database.write { db in try Self.write(outcomes, db) }
    }

    static func write(_ outcomes: [(batch: Int, records: [EditRecord], state: JournalBatch.State)], _ db: Database) throws {
        guard !outcomes.isEmpty else { return }
        let statement = try db.cachedStatement(
            sql: "UPDATE edit SET status = ?, resultObjectId = coalesce(?, resultObjectId), code = ?, reason = ? WHERE position = ?")
        let batchStatement = try db.cachedStatement(sql: "UPDATE batch SET state = ? WHERE id = ?")
        // The usual outcome of a batch of adds, every edit applied with object IDs numbered as the input positions
        // run, in one statement: a statement per edit was most of what recording cost. OR FAIL, which cannot fail
        // here, spares SQLite the statement journal (a temporary file once past 64 KiB) it keeps to undo a
        // statement that stops halfway; the transaction is undone as a whole anyway.
        let runStatement = try db.cachedStatement(
            sql: """
                UPDATE OR FAIL edit SET status = 'applied', resultObjectId = ?1 + (position - ?2), code = NULL, reason = NULL
                WHERE batch = ?3 AND position BETWEEN ?2 AND ?4
                """)
        let packedCount = try db.cachedStatement(sql: "SELECT sum(count) FROM pack WHERE batch = ?")
        let appliedStatement = try db.cachedStatement(sql: "UPDATE batch SET state = ?, applied = ? WHERE id = ?")
        for (id, records, state) in outcomes {
            if let count = try Int.fetchOne(packedCount, arguments: [id]) {
                // A packed batch stays packed when nothing is recorded of it, and when every edit of it is applied
                // (their object IDs in its row); any other outcome makes it a row per edit.
                if records.isEmpty && state != .done {
                    try batchStatement.execute(arguments: [state.rawValue, id])
                    continue
                }
                if try state == .done && records.count == count
                    && records.allSatisfy({ $0.status == .applied && $0.objectId != nil && $0.code == nil && $0.reason == nil })
                    && Self.samePositions(records, Self.packedPositions(db, batch: id))
                {
                    try appliedStatement.execute(binding: state.rawValue, AppliedIDs.encode(records), id)
                    continue
                }
                try Self.unpack(db, batch: id)
            }
            if let run = Self.appliedRun(records) {
                try runStatement.execute(arguments: [run.firstObjectId, run.first, id, run.last])
                try batchStatement.execute(arguments: [state.rawValue, id])
                continue
            }
            for record in records {
                try statement.execute(arguments: [record.status.rawValue, record.objectId, record.code, record.reason, record.index])
            }
            try batchStatement.execute(arguments: [state.rawValue, id])
        }
    }

    /// Whether `records` are the outcomes of exactly the edits at `positions`: compared in order first (a batch's
    /// outcomes come back in plan order, as its packs hold them), as sets only when the order differs: hashing two
    /// sets a batch was the largest part of recording its outcome at batch 100.
    static func samePositions(_ records: [EditRecord], _ positions: [Int]) -> Bool {
        guard records.count == positions.count else { return false }
        return records.indices.allSatisfy { records[$0].index == positions[$0] } || Set(records.map(\.index)) == Set(positions)
    }

    /// When `records` are edits at consecutive positions, each applied without a reason and given the object ID one
    /// more than the one before: the first and last position and the first object ID.
    static func appliedRun(_ records: [EditRecord]) -> (first: Int, last: Int, firstObjectId: Int64)? {
        guard records.count > 1, let head = records.first, let firstObjectId = head.objectId else { return nil }
        for (offset, record) in records.enumerated() {
            guard record.status == .applied, record.code == nil, record.reason == nil, record.index == head.index + offset,
                record.objectId == firstObjectId + Int64(offset)
            else { return nil }
        }
        return (head.index, head.index + records.count - 1, firstObjectId)
    }
}
