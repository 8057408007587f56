import Foundation
import FeatureServiceClient
import GRDB

/// Writing the plan: the edits and their batches (each edit's texts in pages, ``PlanTexts``), groups assigned to
/// atomic batches, records taken out of the plan, and the input's problems.
extension ApplyJournal {
    /// Appends planned edits and the batches they belong to, in one transaction. Rows already there (a plan made again
    /// after an interruption: the same input gives the same rows) are kept as they are, with their outcomes.
    /// - Parameters:
    ///   - edits: Each edit with its batch id, or nil for an edit of a group whose batch is assigned once the whole
    ///     input is read (``assign(_:batches:)``).
    ///   - batches: The batches first named here: id, layer, and whether they are sent with `useGlobalIds=true`.
    ///   - attachments: Files to attach to planned adds.
    ///   - barriers: Batches (of this page or an earlier one) to send only once no batch before them is in flight:
    ///     they edit a feature that an earlier batch edits.
    public func append(
        _ edits: [(edit: PlannedEdit, batch: Int?)], batches: [(id: Int, layer: Int, useGlobalIds: Bool)], attachments: [PlannedAttachment] = [],
        barriers: [Int] = []
    ) throws {
        try append(edits, batches: batches, attachments: attachments, barriers: barriers, pageBytes: PlanTexts.pageBytes)
    }

    /// ``append(_:batches:attachments:barriers:)`` with the texts in pages of at most `pageBytes` (tests use small ones).
    package func append(
        _ edits: [(edit: PlannedEdit, batch: Int?)], batches: [(id: Int, layer: Int, useGlobalIds: Bool)], attachments: [PlannedAttachment] = [],
        barriers: [Int] = [], pageBytes: Int
    ) throws {
        try edits.withUnsafeBufferPointer { rows in
            for index in rows.indices where rows[index].edit.payload.utf8.count + rows[index].edit.source.utf8.count > PlanTexts.largestEdit {
                let edit = rows[index].edit
                throw ApplyError.journal(
                    "record \(edit.position.index + 1)\(edit.position.line.map { " (line \($0))" } ?? "") is too large to plan: its text and payload take \(edit.payload.utf8.count + edit.source.utf8.count) bytes, at most \(PlanTexts.largestEdit) fit. Fix: split it, or simplify its geometry")
            }
        }
        // Whether each edit's row was inserted just now (not planned before).
        var inserted: [Bool] = []
        inserted.reserveCapacity(edits.count)
        try database.write { db in
            let batchStatement = try db.cachedStatement(sql: "INSERT OR IGNORE INTO batch (id, layer, useGlobalIds) VALUES (?, ?, ?)")
            for batch in batches {
                try batchStatement.execute(arguments: [batch.id, batch.layer, batch.useGlobalIds])
                if db.changesCount == 0 {
                    let row = try Row.fetchOne(db, sql: "SELECT layer, useGlobalIds FROM batch WHERE id = ?", arguments: [batch.id])
                    let (layer, useGlobalIds): (Int?, Bool?) = (row?[0], row?[1])
                    if layer != batch.layer || useGlobalIds != batch.useGlobalIds { throw Self.replanned("batch \(batch.id + 1)") }
                }
            }
            let barrierStatement = try db.cachedStatement(sql: "UPDATE batch SET barrier = 1 WHERE id = ?")
            for id in barriers { try barrierStatement.execute(arguments: [id]) }
            // The texts in a row per page (of at most `PlanTexts.pageBytes`, or one edit), each edit's row pointing at
            // its slot. A page is never overwritten: rows kept from an interrupted plan keep pointing at theirs.
            var pages: [(id: Int64, first: Int)] = []
            let pageStatement = try db.cachedStatement(sql: "INSERT INTO planText (texts) VALUES (?)")
            for range in PlanTexts.pages(edits, pageBytes: pageBytes) {
                try pageStatement.execute(binding: PlanTexts.encode(edits[range]))
                pages.append((db.lastInsertedRowID, range.lowerBound))
            }
            // The page and slot of each edit's texts.
            var page = pages.startIndex
            func text(at index: Int) -> (page: Int64, slot: Int) {
                if page + 1 < pages.endIndex && pages[page + 1].first == index { page += 1 }
                return (pages[page].id, index - pages[page].first)
            }
            // Whether the row was inserted now; if it was there, that it plans the same.
            func checkInserted(_ edit: PlannedEdit, batch: Int?) throws {
                inserted.append(db.changesCount > 0)
                if db.changesCount == 0 {
                    // Planned before: it must plan the same (a grouped edit's batch is assigned later).
                    guard let row = try Row.fetchOne(db, sql: "SELECT batch, kind, layer, globalId FROM edit WHERE position = ?", arguments: [edit.position.index])
                    else { throw Self.replanned("record \(edit.position.index + 1)") }
                    let (planned, kind, layer, globalId): (Int?, String, Int, String?) = (row[0], row[1], row[2], row[3])
                    if kind != edit.kind.rawValue || layer != edit.layer || globalId != edit.globalId || (batch != nil && planned != batch) {
                        throw Self.replanned("record \(edit.position.index + 1)")
                    }
                }
            }
            // Edits are passed on borrowed, through a buffer pointer: reading one out of the array copied it whole
            // (every string retained and released), which cost about as much as its row.
            try edits.withUnsafeBufferPointer { rows in
                guard let first = rows.first, let last = rows.last else { return }
                // Positions rising one edit to the next (as the planner gives them), none in the journal yet.
                let rising = zip(rows.dropFirst(), rows).allSatisfy { $0.edit.position.index > $1.edit.position.index }
                let planned = try !rising || Bool.fetchOne(
                    db, sql: "SELECT EXISTS (SELECT 1 FROM edit WHERE position BETWEEN ? AND ?)", arguments: [first.edit.position.index, last.edit.position.index]) ?? true
                if !planned {
                    // None of these rows is there (the usual case: a new plan): inserted \(Self.rowsPerInsert) to a
                    // statement, sparing SQLite and GRDB their work per statement. A failure undoes the whole
                    // transaction, so OR FAIL leaves nothing half done.
                    let many = try db.cachedStatement(
                        sql: "INSERT OR FAIL INTO edit \(Self.editInsertColumns) VALUES "
                            + Array(repeating: Self.editInsertValues, count: Self.rowsPerInsert).joined(separator: ", "))
                    let one = try db.cachedStatement(sql: "INSERT OR FAIL INTO edit \(Self.editInsertColumns) VALUES \(Self.editInsertValues)")
                    var index = 0
                    while index < rows.count {
                        let count = min(Self.rowsPerInsert, rows.count - index)
                        let statement = count == Self.rowsPerInsert ? many : one
                        let chunk = count == Self.rowsPerInsert ? index..<index + count : index..<index + 1
                        statement.clearBindings()
                        var bound: Int32 = 0
                        for row in chunk { bound = try Self.bind(rows[row].edit, batch: rows[row].batch, text: text(at: row), to: statement, after: bound) }
                        try statement.executeBound(bound)
                        index = chunk.upperBound
                    }
                    inserted = Array(repeating: true, count: rows.count)
                    return
                }
                // Some were planned before (a plan made again after an interruption): row by row, each checked.
                let statement = try db.cachedStatement(sql: "INSERT OR IGNORE INTO edit \(Self.editInsertColumns) VALUES \(Self.editInsertValues)")
                for index in rows.indices {
                    statement.clearBindings()
                    try statement.executeBound(Self.bind(rows[index].edit, batch: rows[index].batch, text: text(at: index), to: statement, after: 0))
                    try checkInserted(rows[index].edit, batch: rows[index].batch)
                }
                // A page none of whose rows went in holds texts the rows already there have: not kept, so resuming
                // the same interrupted plan again and again does not grow the journal.
                for (number, written) in pages.enumerated() {
                    let end = number + 1 < pages.count ? pages[number + 1].first : rows.count
                    if !inserted[written.first..<end].contains(true) {
                        try db.execute(sql: "DELETE FROM planText WHERE id = ?", arguments: [written.id])
                    }
                }
            }
            let attachmentStatement = try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO attachment (globalId, position, layer, parentGlobalId, file, name, contentType) VALUES (?, ?, ?, ?, ?, ?, ?)")
            for planned in attachments {
                let add = planned.add
                try attachmentStatement.execute(arguments: [
                    add.globalId, planned.position, add.layer, add.parentGlobalId, add.file, add.name, add.contentType,
                ])
            }
        }
        plannedBatches.keep(edits, inserted: inserted)
    }

    /// The columns of an edit's row ``bind(_:batch:text:to:after:)`` fills, and one row's values (its texts in a page).
    static let editInsertColumns = "(position, line, sourceTable, batch, grp, kind, layer, globalId, objectId, payload, source, text, slot)"
    static let editInsertValues = "(?, ?, ?, ?, ?, ?, ?, ?, ?, '', '', ?, ?)"
    /// Rows a statement inserts at once into a new plan.
    static let rowsPerInsert = 50

    /// Binds the values of `edit`'s row after the first `bound` parameters of `statement`; returns the parameters bound.
    static func bind(_ edit: PlannedEdit, batch: Int?, text: (page: Int64, slot: Int), to statement: Statement, after bound: Int32) throws -> Int32 {
        try statement.bind(
            after: bound, edit.position.index, edit.position.line, edit.position.table, batch, edit.group, edit.kind.rawValue, edit.layer, edit.globalId,
            edit.objectId, text.page, text.slot)
    }

    /// A plan made again after an interruption that does not match the rows written before.
    static func replanned(_ what: String) -> ApplyError {
        ApplyError.journal(
            "the input or the layer changed since this plan was interrupted: \(what) now plans differently. Fix: resume with the input as it was, or start a new run with a new --journal (adds of records that did not change are found by their GlobalIDs, not added again)"
        )
    }

    /// Whether any batch was marked for sending: a plan interrupted before that can be made again from scratch.
    public func anySent() throws -> Bool {
        try database.read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM batch WHERE sends > 0)") } ?? false
    }

    /// Sets the group and batch of edits planned without a batch, and adds the atomic batches they go in (sent as one
    /// service-level applyEdits each), in one transaction.
    /// - Parameters:
    ///   - members: Each edit's position, its group (the position of the group's first add) and its batch.
    ///   - batches: The atomic batches first named here, with the layer of their first edit.
    public func assign(_ members: [(position: Int, group: Int, batch: Int)], batches: [(id: Int, layer: Int)]) throws {
        try database.write { db in
            let batchStatement = try db.cachedStatement(sql: "INSERT OR IGNORE INTO batch (id, layer, useGlobalIds, atomic) VALUES (?, ?, 1, 1)")
            for batch in batches { try batchStatement.execute(arguments: [batch.id, batch.layer]) }
            let statement = try db.cachedStatement(sql: "UPDATE edit SET grp = ?, batch = ? WHERE position = ?")
            for member in members { try statement.execute(arguments: [member.group, member.batch, member.position]) }
        }
    }

    /// Takes planned edits out of the plan (with their files), recording them as problems with `reason` when
    /// `asProblems`.
    public func remove(_ edits: [(position: Int, reason: String)], asProblems: Bool) throws {
        try database.write { db in
            let problem = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO problem (position, line, sourceTable, reason, source, kind, layer) VALUES (?, ?, ?, ?, ?, ?, ?)")
            let attachment = try db.cachedStatement(sql: "DELETE FROM attachment WHERE position = ?")
            let edit = try db.cachedStatement(sql: "DELETE FROM edit WHERE position = ?")
            var pages = TextPages()
            for (position, reason) in edits {
                if asProblems,
                    let row = try Row.fetchOne(db, sql: "SELECT \(Self.editColumns) FROM edit WHERE position = ?", arguments: [position])
                {
                    let removed = try Self.edit(row, pages: &pages, db).planned
                    try problem.execute(arguments: [
                        position, removed.position.line, removed.position.table, reason, removed.source, removed.kind.rawValue, removed.layer,
                    ])
                }
                try attachment.execute(arguments: [position])
                try edit.execute(arguments: [position])
            }
        }
        plannedBatches.forgetAll()
    }

    /// Records input records that could not be read or fit the layer (with `--skip-invalid`, for the rejects file).
    public func append(problems: [InputProblem]) throws {
        guard !problems.isEmpty else { return }
        try database.write { db in
            let statement = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO problem (position, line, sourceTable, reason, source, kind, layer) VALUES (?, ?, ?, ?, ?, ?, ?)")
            for problem in problems {
                try statement.execute(arguments: [
                    problem.position.index, problem.position.line, problem.position.table, problem.reason, problem.source, problem.kind?.rawValue,
                    problem.layer,
                ])
            }
        }
    }

    /// Marks the plan complete: from now on batches may be sent.
    public func finishPlan() throws {
        try database.write { db in try db.execute(sql: "UPDATE run SET planned = 1") }
    }
}
