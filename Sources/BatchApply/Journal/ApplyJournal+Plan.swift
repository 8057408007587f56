import FeatureServiceClient
import Foundation
import GRDB
import SQLiteSupport

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
    package func append(
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
                    "record \(edit.position.index + 1)\(edit.position.line.map { " (line \($0))" } ?? "") is too large to plan: its text and payload take \(edit.payload.utf8.count + edit.source.utf8.count) bytes, at most \(PlanTexts.largestEdit) fit. Fix: split it, or simplify its geometry"
                )
            }
        }
        // Whether each edit's row or pack was inserted just now (not planned before).
        var inserted = [Bool](repeating: false, count: edits.count)
        try database.write { db in
            // Batches first written now: no edit of theirs is in the journal yet.
            var newBatches: Set<Int> = []
            let batchStatement = try db.cachedStatement(sql: "INSERT OR IGNORE INTO batch (id, layer, useGlobalIds) VALUES (?, ?, ?)")
            for batch in batches {
                try batchStatement.execute(arguments: [batch.id, batch.layer, batch.useGlobalIds])
                if db.changesCount > 0 {
                    newBatches.insert(batch.id)
                } else {
                    let row = try Row.fetchOne(db, sql: "SELECT layer, useGlobalIds FROM batch WHERE id = ?", arguments: [batch.id])
                    let (layer, useGlobalIds): (Int?, Bool?) = (row?[0], row?[1])
                    if layer != batch.layer || useGlobalIds != batch.useGlobalIds { throw Self.replanned("batch \(batch.id + 1)") }
                }
            }
            let barrierStatement = try db.cachedStatement(sql: "UPDATE batch SET barrier = 1 WHERE id = ?")
            for id in barriers { try barrierStatement.execute(arguments: [id]) }
            // The texts in a row per page (of at most `PlanTexts.pageBytes`, or one edit), each edit's row or pack
            // pointing at its slot. A page is never overwritten: rows and packs kept from an interrupted plan keep
            // pointing at theirs.
            var pages: [(id: Int64, first: Int)] = []
            let pageStatement = try db.cachedStatement(sql: "INSERT INTO planText (texts) VALUES (?)")
            for range in PlanTexts.pages(edits, pageBytes: pageBytes) {
                try pageStatement.execute(binding: PlanTexts.encode(edits[range]))
                pages.append((db.lastInsertedRowID, range.lowerBound))
            }
            // The page (its index in `pages`) of each edit's texts, and its slot.
            var page = pages.startIndex
            func text(at index: Int) -> (page: Int, slot: Int) {
                while page + 1 < pages.endIndex && pages[page + 1].first <= index { page += 1 }
                return (page, index - pages[page].first)
            }
            // Whether the row was inserted now; if it was there, that it plans the same.
            func checkInserted(_ index: Int, _ edit: PlannedEdit, batch: Int?) throws {
                inserted[index] = db.changesCount > 0
                if db.changesCount == 0 {
                    // Planned before: it must plan the same (a grouped edit's batch is assigned later).
                    guard
                        let row = try Row.fetchOne(
                            db, sql: "SELECT batch, kind, layer, globalId FROM edit WHERE position = ?", arguments: [edit.position.index])
                    else { throw Self.replanned("record \(edit.position.index + 1)") }
                    let (planned, kind, layer, globalId): (Int?, String, Int, String?) = (row[0], row[1], row[2], row[3])
                    if kind != edit.kind.rawValue || layer != edit.layer || globalId != edit.globalId || (batch != nil && planned != batch) {
                        throw Self.replanned("record \(edit.position.index + 1)")
                    }
                } else if try !Self.packedBatches(db, holding: [edit.position.index]).isEmpty {
                    // A row for an edit a pack holds already: the input changed.
                    throw Self.replanned("record \(edit.position.index + 1)")
                }
            }
            // Edits are passed on borrowed, through a buffer pointer: reading one out of the array copied it whole
            // (every string retained and released), which cost about as much as its row.
            try edits.withUnsafeBufferPointer { rows in
                guard let first = rows.first, let last = rows.last else { return }
                // Which edits go in packs: plain edits (a batch, no group, no file) of a batch that has packs, or is
                // new and gets at least `packMinimum` of them here. Each pack holds the edits of one batch with their
                // texts in one page, in plan order.
                let attached = Set(attachments.map(\.position))
                var plain: [Int: [Int]] = [:]
                var rowIndices: [Int] = []
                for index in rows.indices {
                    // Fields read in place: `let edit = rows[index].edit` copied the edit (its strings retained).
                    guard let batch = rows[index].batch, rows[index].edit.group == nil,
                        attached.isEmpty || !attached.contains(rows[index].edit.position.index)
                    else {
                        rowIndices.append(index)
                        continue
                    }
                    plain[batch, default: []].append(index)
                }
                var packs: [PackKey: [Int]] = [:]
                for (batch, members) in plain {
                    let packed: Bool
                    if newBatches.contains(batch) {
                        packed = members.count >= Self.packMinimum
                    } else if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM edit WHERE batch = ?)", arguments: [batch]) ?? false {
                        // A batch with rows of its own (small, or planned by an earlier version) keeps its edits in rows.
                        packed = false
                    } else {
                        packed =
                            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM pack WHERE batch = ?)", arguments: [batch]) ?? false
                            || members.count >= Self.packMinimum
                    }
                    guard packed else {
                        rowIndices += members
                        continue
                    }
                    for member in members { packs[PackKey(page: text(at: member).page, batch: batch), default: []].append(member) }
                    page = pages.startIndex
                }
                rowIndices.sort()
                // In plan order: by each pack's first edit.
                let packOrder = packs.sorted { $0.value[0] < $1.value[0] }
                page = pages.startIndex
                // Positions rising one edit to the next (as the planner gives them), none in the journal yet.
                let rising = rows.indices.dropFirst().allSatisfy { rows[$0].edit.position.index > rows[$0 - 1].edit.position.index }
                let (low, high) = (first.edit.position.index, last.edit.position.index)
                let planned =
                    try !rising
                    || Bool.fetchOne(
                        db,
                        sql:
                            "SELECT EXISTS (SELECT 1 FROM edit WHERE position BETWEEN ?1 AND ?2) OR EXISTS (SELECT 1 FROM pack WHERE \(Self.packOverlaps("?1", "?2")))",
                        arguments: [low, high]) ?? true
                // The most positions a pack of this append spans.
                var span = 0
                let packStatement = try db.cachedStatement(
                    sql: "INSERT OR FAIL INTO pack (batch, first, last, count, text, edits, slots) VALUES (?, ?, ?, ?, ?, ?, ?)")
                for (key, var members) in packOrder {
                    if planned {
                        // Made again over an interrupted plan: edits planned before must plan the same, and are kept
                        // as they are (with their outcomes); the others are packed.
                        let before = try Self.plannedEdits(db, among: members.map { rows[$0].edit.position.index })
                        members = try members.filter { member in
                            let edit = rows[member].edit
                            guard let earlier = before[edit.position.index] else { return true }
                            guard earlier.kind == edit.kind, earlier.layer == edit.layer, earlier.globalId == edit.globalId,
                                earlier.batch == key.batch
                            else { throw Self.replanned("record \(edit.position.index + 1)") }
                            return false
                        }
                        if members.isEmpty { continue }
                    }
                    let slots = EditPack.encode(slots: members.map { $0 - pages[key.page].first })
                    let positions = members.map { rows[$0].edit.position.index }
                    let (low, high) = (positions.min() ?? 0, positions.max() ?? 0)
                    try packStatement.execute(binding: key.batch, low, high, members.count, pages[key.page].id, EditPack.encode(rows, members), slots)
                    span = max(span, high - low)
                    for member in members { inserted[member] = true }
                }
                if span > 0 { try db.execute(sql: "UPDATE run SET packSpan = max(packSpan, ?) WHERE id = 1", arguments: [span]) }
                if !planned {
                    // None of these rows is there (the usual case: a new plan): inserted \(Self.rowsPerInsert) to a
                    // statement, sparing SQLite and GRDB their work per statement. A failure undoes the whole
                    // transaction, so OR FAIL leaves nothing half done.
                    let many = try db.cachedStatement(
                        sql: "INSERT OR FAIL INTO edit \(Self.editInsertColumns) VALUES "
                            + Array(repeating: Self.editInsertValues, count: Self.rowsPerInsert).joined(separator: ", "))
                    let one = try db.cachedStatement(sql: "INSERT OR FAIL INTO edit \(Self.editInsertColumns) VALUES \(Self.editInsertValues)")
                    var next = 0
                    while next < rowIndices.count {
                        let count = min(Self.rowsPerInsert, rowIndices.count - next)
                        let statement = count == Self.rowsPerInsert ? many : one
                        let chunk = count == Self.rowsPerInsert ? next..<next + count : next..<next + 1
                        statement.clearBindings()
                        var bound: Int32 = 0
                        for member in chunk {
                            let row = rowIndices[member]
                            let (number, slot) = text(at: row)
                            bound = try Self.bind(rows[row].edit, batch: rows[row].batch, text: (pages[number].id, slot), to: statement, after: bound)
                            inserted[row] = true
                        }
                        try statement.executeBound(bound)
                        next = chunk.upperBound
                    }
                    return
                }
                // Some were planned before (a plan made again after an interruption): row by row, each checked.
                let statement = try db.cachedStatement(sql: "INSERT OR IGNORE INTO edit \(Self.editInsertColumns) VALUES \(Self.editInsertValues)")
                for index in rowIndices {
                    let (number, slot) = text(at: index)
                    statement.clearBindings()
                    try statement.executeBound(
                        Self.bind(rows[index].edit, batch: rows[index].batch, text: (pages[number].id, slot), to: statement, after: 0))
                    try checkInserted(index, rows[index].edit, batch: rows[index].batch)
                }
                // A page none of whose rows or packs went in holds texts those already there have: not kept, so
                // resuming the same interrupted plan again and again does not grow the journal.
                for (number, written) in pages.enumerated() {
                    let end = number + 1 < pages.count ? pages[number + 1].first : rows.count
                    if !inserted[written.first..<end].contains(true) {
                        try db.execute(sql: "DELETE FROM planText WHERE id = ?", arguments: [written.id])
                    }
                }
            }
            let attachmentStatement = try db.cachedStatement(
                sql:
                    "INSERT OR IGNORE INTO attachment (globalId, position, layer, parentGlobalId, file, name, contentType) VALUES (?, ?, ?, ?, ?, ?, ?)"
            )
            for planned in attachments {
                let add = planned.add
                try attachmentStatement.execute(arguments: [
                    add.globalId, planned.position, add.layer, add.parentGlobalId, add.file, add.name, add.contentType,
                ])
            }
        }
        plannedBatches.keep(edits, inserted: inserted)
    }

    /// A pack being made: the edits of one batch whose texts are in one page (its index among the append's pages).
    struct PackKey: Hashable {
        var page: Int
        var batch: Int
    }

    /// What plans those of `positions` already in the journal, in a pack or a row.
    static func plannedEdits(
        _ db: Database, among positions: [Int]
    ) throws -> [Int: (batch: Int?, kind: InputEdit.Kind, layer: Int, globalId: String?)] {
        guard let low = positions.min(), let high = positions.max() else { return [:] }
        let wanted = Set(positions)
        var found: [Int: (batch: Int?, kind: InputEdit.Kind, layer: Int, globalId: String?)] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT batch, edits FROM pack WHERE \(packOverlaps("?1", "?2"))", arguments: [low, high]) {
            for entry in try EditPack([UInt8](row[1] as Data)).entries where wanted.contains(entry.position.index) {
                found[entry.position.index] = (row[0], entry.kind, entry.layer, entry.globalId)
            }
        }
        for row in try Row.fetchAll(
            db, sql: "SELECT position, batch, kind, layer, globalId FROM edit WHERE position BETWEEN ? AND ?", arguments: [low, high])
        {
            let position: Int = row[0]
            guard wanted.contains(position) else { continue }
            found[position] = (row[1], InputEdit.Kind(rawValue: row[2]) ?? .add, row[3], row[4])
        }
        return found
    }

    /// The columns of an edit's row ``bind(_:batch:text:to:after:)`` fills, and one row's values (its texts in a page).
    static let editInsertColumns = "(position, line, sourceTable, batch, grp, kind, layer, globalId, objectId, payload, source, text, slot)"
    static let editInsertValues = "(?, ?, ?, ?, ?, ?, ?, ?, ?, '', '', ?, ?)"
    /// Rows a statement inserts at once into a new plan.
    static let rowsPerInsert = 50
    /// The fewest edits of a new batch that an append packs: fewer go in rows, which cost less than a pack each (a
    /// batch of one edit is a row, as are the last few edits of a page that start a batch).
    static let packMinimum = 16

    /// Binds the values of `edit`'s row after the first `bound` parameters of `statement`; returns the parameters bound.
    static func bind(_ edit: PlannedEdit, batch: Int?, text: (page: Int64, slot: Int), to statement: Statement, after bound: Int32) throws -> Int32 {
        try statement.bind(
            after: bound, edit.position.index, edit.position.line, edit.position.table, batch, edit.group, edit.kind.rawValue, edit.layer,
            edit.globalId,
            edit.objectId, text.page, text.slot)
    }

    /// A plan made again after an interruption that does not match the rows written before.
    static func replanned(_ what: String) -> ApplyError {
        ApplyError.journal(
            "the input or the layer changed since this plan was interrupted: \(what) now plans differently. Fix: resume with the input as it was, or start a new run with a new --journal (adds of records that did not change are found by their GlobalIDs, not added again)"
        )
    }

    /// Whether any batch was marked for sending: a plan interrupted before that can be made again from scratch.
    package func anySent() throws -> Bool {
        try database.read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM batch WHERE sends > 0)") } ?? false
    }

    /// Sets the group and batch of edits planned without a batch, and adds the atomic batches they go in (sent as one
    /// service-level applyEdits each), in one transaction.
    /// - Parameters:
    ///   - members: Each edit's position, its group (the position of the group's first add) and its batch.
    ///   - batches: The atomic batches first named here, with the layer of their first edit.
    package func assign(_ members: [(position: Int, group: Int, batch: Int)], batches: [(id: Int, layer: Int)]) throws {
        try database.write { db in
            let batchStatement = try db.cachedStatement(sql: "INSERT OR IGNORE INTO batch (id, layer, useGlobalIds, atomic) VALUES (?, ?, 1, 1)")
            for batch in batches { try batchStatement.execute(arguments: [batch.id, batch.layer]) }
            let statement = try db.cachedStatement(sql: "UPDATE edit SET grp = ?, batch = ? WHERE position = ?")
            for member in members { try statement.execute(arguments: [member.group, member.batch, member.position]) }
        }
    }

    /// Takes planned edits out of the plan (with their files), recording them as problems with `reason` when
    /// `asProblems`.
    package func remove(_ edits: [(position: Int, reason: String)], asProblems: Bool) throws {
        try database.write { db in
            let problem = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO problem (position, line, sourceTable, reason, source, kind, layer) VALUES (?, ?, ?, ?, ?, ?, ?)")
            let attachment = try db.cachedStatement(sql: "DELETE FROM attachment WHERE position = ?")
            let edit = try db.cachedStatement(sql: "DELETE FROM edit WHERE position = ?")
            // Edits of groups, which are rows; should a pack hold one, its batch becomes rows first.
            let unrowed = try edits.map(\.position).filter {
                try !(Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM edit WHERE position = ?)", arguments: [$0]) ?? false)
            }
            for batch in try Self.packedBatches(db, holding: unrowed) { try Self.unpack(db, batch: batch) }
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
    package func append(problems: [InputProblem]) throws {
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
    package func finishPlan() throws {
        try database.write { db in try db.execute(sql: "UPDATE run SET planned = 1") }
    }
}
