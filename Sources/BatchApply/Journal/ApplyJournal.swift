import Foundation
import FeatureServiceClient
import GRDB

/// The journal of one `featureload apply`: an SQLite file (WAL) that holds the plan — every edit with its batch,
/// client-assigned GlobalID and input position — before anything is sent, and each edit's outcome after.
///
/// A crash at any moment leaves a consistent file. Batches are marked `sending` before their request goes out and
/// `done` when their outcomes are written, each in one transaction; a batch found `sending` on resume is in doubt
/// and is reconciled against the service by GlobalID before anything of it is sent again. An outcome lost to a
/// crash (or a power cut, since commits are not synced one by one) only makes its batch in doubt again, which the
/// reconciliation settles: losing a journal write never resends an applied edit blindly.
///
/// A final class over GRDB's `DatabaseQueue`, which serialises access: safe to share between tasks. Its calls are
/// synchronous and short (one transaction each), so an outcome is written even while the task is being cancelled.
///
/// ```swift
/// let journal = try ApplyJournal.create(at: "edits.journal", header: header)
/// try journal.append(plannedEdits, batches: batches)
/// try journal.finishPlan()
/// for id in try journal.openBatchIds() { … try await journal.record(batch: id, outcomes) }
/// ```
public final class ApplyJournal: Sendable {
    /// The journal's file.
    public let path: String
    let database: DatabaseQueue
    /// Plain batches this process planned, sent without reading them back (``startSending(_:)``).
    let plannedBatches = PlannedBatchCache()

    /// The schema version this code writes and reads.
    public static let version = 4

    /// The files to attach, each keyed by its GlobalID, with the position of the add it goes with: made by a new
    /// journal and by the upgrade of a version-1 one.
    static let attachmentTable = """
        CREATE TABLE attachment (
            globalId TEXT PRIMARY KEY, position INTEGER NOT NULL, layer INTEGER NOT NULL, parentGlobalId TEXT NOT NULL,
            file TEXT NOT NULL, name TEXT NOT NULL, contentType TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'pending', reason TEXT
        );
        CREATE INDEX attachment_position ON attachment(position);
        """

    /// The texts of the plan's edits, a page (``PlanTexts``) per row: an edit whose `text` is not null has its payload
    /// and input record at `slot` of that page, and empty texts in its own row (version 3 and earlier kept them
    /// there).
    static let planTextTable = "CREATE TABLE planText (id INTEGER PRIMARY KEY, texts BLOB NOT NULL);"

    /// The open statuses (``EditStatus/isOpen``) as an SQL list.
    static let openStatuses = "(" + EditStatus.allCases.filter(\.isOpen).map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"

    /// Keeps the write-ahead log short, so that closing the journal has little left to copy.
    private let checkpointer: JournalCheckpointer?

    private init(path: String, database: DatabaseQueue) {
        self.path = path
        self.database = database
        checkpointer = JournalCheckpointer(path: path)
    }

    deinit {
        checkpointer?.stop()
    }

    private static func openDatabase(_ path: String, readonly: Bool = false) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = readonly
        configuration.busyMode = .timeout(10)
        if !readonly {
            configuration.prepareDatabase { db in
                // Larger pages than the default 4 KiB: a new journal's rows (an edit with its input text is a few
                // hundred bytes) go to disk in a quarter of the writes. No effect on an existing file.
                try db.execute(sql: "PRAGMA page_size = 16384")
                try db.execute(sql: "PRAGMA journal_mode = WAL")
                // WAL with NORMAL survives a killed process without a sync per commit; a power cut can lose the
                // last commits, which only puts their batches back in doubt (see the type's documentation).
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
        }
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    /// Creates a journal at `path` for a new run.
    /// - Throws: ``ApplyError/journal(_:)`` when a file is already there (resume it, or remove it) or cannot be made.
    public static func create(at path: String, header: JournalHeader) throws -> ApplyJournal {
        if FileManager.default.fileExists(atPath: path) {
            throw ApplyError.journal(
                "\(path) exists already. Fix: continue that run with `featureload apply --resume \(path)`, or give another --journal")
        }
        // Made under a temporary name and renamed once its schema and header are in, so a crash while it is being
        // made never leaves a file that is neither absent nor a journal.
        let partial = path + ".partial"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: partial + suffix) }
        do {
            let database = try openDatabase(partial)
            let json = String(decoding: try JSONEncoder().encode(header), as: UTF8.self)
            try database.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE run (
                            id INTEGER PRIMARY KEY CHECK (id = 1),
                            version INTEGER NOT NULL,
                            header TEXT NOT NULL,
                            planned INTEGER NOT NULL DEFAULT 0,
                            created REAL NOT NULL
                        );
                        CREATE TABLE batch (
                            id INTEGER PRIMARY KEY,
                            layer INTEGER NOT NULL,
                            useGlobalIds INTEGER NOT NULL,
                            atomic INTEGER NOT NULL DEFAULT 0,
                            state TEXT NOT NULL DEFAULT 'planned',
                            sends INTEGER NOT NULL DEFAULT 0,
                            barrier INTEGER NOT NULL DEFAULT 0
                        );
                        CREATE TABLE edit (
                            position INTEGER PRIMARY KEY,
                            line INTEGER,
                            sourceTable TEXT,
                            batch INTEGER REFERENCES batch(id),
                            grp INTEGER,
                            kind TEXT NOT NULL,
                            layer INTEGER NOT NULL,
                            globalId TEXT,
                            objectId INTEGER,
                            payload TEXT NOT NULL,
                            source TEXT NOT NULL,
                            status TEXT NOT NULL DEFAULT 'pending',
                            resultObjectId INTEGER,
                            code INTEGER,
                            reason TEXT,
                            text INTEGER,
                            slot INTEGER
                        );
                        CREATE INDEX edit_batch ON edit(batch);
                        \(planTextTable)
                        \(attachmentTable)
                        CREATE TABLE problem (
                            position INTEGER PRIMARY KEY,
                            line INTEGER,
                            sourceTable TEXT,
                            reason TEXT NOT NULL,
                            source TEXT,
                            kind TEXT,
                            layer INTEGER
                        );
                        """)
                try db.execute(
                    sql: "INSERT INTO run (id, version, header, created) VALUES (1, ?, ?, ?)",
                    arguments: [version, json, Date().timeIntervalSince1970])
            }
            try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            try database.close()
            try FileManager.default.moveItem(atPath: partial, toPath: path)
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: partial + suffix) }
            return ApplyJournal(path: path, database: try openDatabase(path))
        } catch let error as ApplyError {
            throw error
        } catch {
            throw ApplyError.journal("cannot create the journal \(path): \(error)")
        }
    }

    /// Opens the journal at `path` to resume or verify its run.
    /// - Throws: ``ApplyError/journal(_:)`` when it is missing, not a journal, or of another version.
    public static func open(at path: String) throws -> ApplyJournal {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ApplyError.journal("no journal at \(path). Fix: give the --journal path of an earlier `featureload apply`")
        }
        do {
            let database = try openDatabase(path)
            var version = try database.read { db in try Int.fetchOne(db, sql: "SELECT version FROM run WHERE id = 1") }
            // A run of an earlier featureload, perhaps left in doubt: upgraded in place, so that it resumes.
            if version == 1 {
                try migrateFromVersion1(database)
                version = 2
            }
            if version == 2 {
                try migrateFromVersion2(database)
                version = 3
            }
            if version == 3 {
                try migrateFromVersion3(database)
                version = 4
            }
            guard version == Self.version else {
                throw ApplyError.journal("\(path) is a journal of version \(version.map(String.init) ?? "?"), this featureload reads version \(Self.version)")
            }
            return ApplyJournal(path: path, database: database)
        } catch let error as ApplyError {
            throw error
        } catch {
            throw ApplyError.journal("\(path) is not a featureload apply journal: \(error)")
        }
    }

    /// Version 1 had no groups, atomic batches, files, or kinds and layers of invalid records: adds them, empty,
    /// in one transaction.
    static func migrateFromVersion1(_ database: DatabaseQueue) throws {
        try database.write { db in
            try db.execute(
                sql: """
                    ALTER TABLE batch ADD COLUMN atomic INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE edit ADD COLUMN grp INTEGER;
                    ALTER TABLE problem ADD COLUMN kind TEXT;
                    ALTER TABLE problem ADD COLUMN layer INTEGER;
                    \(attachmentTable)
                    UPDATE run SET version = 2 WHERE id = 1;
                    """)
        }
    }

    /// Version 2 had no barriers (batches that wait for the batches before them): adds the column, every batch
    /// without one, as version 2 planned them.
    static func migrateFromVersion2(_ database: DatabaseQueue) throws {
        try database.write { db in
            try db.execute(sql: "ALTER TABLE batch ADD COLUMN barrier INTEGER NOT NULL DEFAULT 0; UPDATE run SET version = 3 WHERE id = 1")
        }
    }

    /// Version 3 kept each edit's texts in its row: adds the pages of texts, empty, and the columns that point into
    /// them, null for every edit planned then.
    static func migrateFromVersion3(_ database: DatabaseQueue) throws {
        try database.write { db in
            try db.execute(
                sql: """
                    ALTER TABLE edit ADD COLUMN text INTEGER;
                    ALTER TABLE edit ADD COLUMN slot INTEGER;
                    \(planTextTable)
                    UPDATE run SET version = 4 WHERE id = 1;
                    """)
        }
    }

    /// The run's header.
    public func header() throws -> JournalHeader {
        let json = try database.read { db in try String.fetchOne(db, sql: "SELECT header FROM run WHERE id = 1") } ?? "{}"
        return try JSONDecoder().decode(JournalHeader.self, from: Data(json.utf8))
    }

    /// Replaces the run's header (what planning learnt of the input, such as the CSV header row).
    public func update(_ header: JournalHeader) throws {
        let json = String(decoding: try JSONEncoder().encode(header), as: UTF8.self)
        try database.write { db in try db.execute(sql: "UPDATE run SET header = ? WHERE id = 1", arguments: [json]) }
    }

    /// Whether the plan was written completely (sending starts only then).
    public func isPlanned() throws -> Bool {
        try database.read { db in try Bool.fetchOne(db, sql: "SELECT planned FROM run WHERE id = 1") } ?? false
    }

    /// Drops a plan that was interrupted before it was complete (nothing of it was sent), to plan again.
    public func discardPlan() throws {
        try database.write { db in
            try db.execute(sql: "DELETE FROM attachment; DELETE FROM edit; DELETE FROM planText; DELETE FROM batch; DELETE FROM problem; UPDATE run SET planned = 0")
        }
        plannedBatches.forgetAll()
    }

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

    /// The number of files planned to be attached, and of those found attached.
    public func attachmentCounts() throws -> (planned: Int, applied: Int) {
        try database.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT count(*), coalesce(sum(status = 'applied'), 0) FROM attachment")
            return (row?[0] ?? 0, row?[1] ?? 0)
        }
    }

    /// Records what became of files, by their GlobalIDs.
    public func record(files: [FileRecord]) throws {
        guard !files.isEmpty else { return }
        try database.write { db in
            let statement = try db.cachedStatement(sql: "UPDATE attachment SET status = ?, reason = ? WHERE globalId = ?")
            for file in files { try statement.execute(arguments: [file.status.rawValue, file.reason, file.globalId]) }
        }
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

    /// The ids of the batches with open edits, in order, each with its state.
    public func openBatches() throws -> [(id: Int, state: JournalBatch.State)] {
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
    public func openEditCount() throws -> Int {
        try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM edit WHERE status IN \(Self.openStatuses)") } ?? 0
    }

    /// Batch `id` with its open edits.
    public func batch(_ id: Int) throws -> JournalBatch {
        try database.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT layer, useGlobalIds, state, atomic, barrier FROM batch WHERE id = ?", arguments: [id]) else {
                throw ApplyError.journal("the journal has no batch \(id)")
            }
            var pages = TextPages()
            let edits = try Row.fetchAll(
                db, sql: "SELECT \(Self.editColumns) FROM edit WHERE batch = ? AND status IN \(Self.openStatuses) ORDER BY position", arguments: [id]
            ).map { row in try Self.edit(row, pages: &pages, db) }
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
            planned: planned, batch: row[3] ?? -1, status: EditStatus(rawValue: row[10]) ?? .pending, resultObjectId: row[11], code: row[12], reason: row[13])
    }

    /// Marks batches `ids` as being sent and reads them with their open edits (each edit's position without its line
    /// or table, its input text left empty, and no earlier outcome but its status), in one transaction: in doubt
    /// until their outcomes are recorded. Marking a batch before its request goes out is what matters; marking it
    /// earlier only makes it one more batch to look up should the run stop before sending it. A batch with no open
    /// edit is not marked, and comes back without edits.
    public func startSending(_ ids: [Int]) throws -> [JournalBatch] {
        guard !ids.isEmpty else { return [] }
        let list = ids.map(String.init).joined(separator: ",")
        // Batches this process planned, all of whose rows it wrote, come from memory: every edit of them is open.
        var kept: [Int: [PlannedEdit]] = [:]
        for id in ids { kept[id] = plannedBatches.take(id) }
        let unkept = ids.filter { kept[$0] == nil }.map(String.init).joined(separator: ",")
        return try database.write { db in
            try db.execute(
                sql: """
                    UPDATE batch SET state = 'sending', sends = sends + 1
                    WHERE id IN (\(list)) AND EXISTS (SELECT 1 FROM edit WHERE edit.batch = batch.id AND status IN \(Self.openStatuses))
                    """)
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
            for (id, edits) in kept {
                batches[id]?.edits = edits.map { JournalEdit(planned: $0, batch: id, status: .pending) }
            }
            // The others' open edits: only what sending needs, decoded as the rows are stepped through (reading whole
            // rows, the input text above all, was most of what a window cost).
            let rows = unkept.isEmpty
                ? nil
                : try Row.fetchCursor(
                    db,
                    sql: """
                        SELECT position, batch, kind, layer, globalId, objectId, payload, grp, status, text, slot FROM edit
                        WHERE batch IN (\(unkept)) AND status IN \(Self.openStatuses) ORDER BY position
                        """)
            var pages = TextPages()
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
                guard let batch = batches[id] else { throw ApplyError.journal("the journal has no batch \(id)") }
                return batch
            }
        }
    }

    /// Marks batch `id` as being sent: in doubt until its outcomes are recorded.
    public func markSending(_ id: Int) throws {
        _ = plannedBatches.take(id)
        try database.write { db in
            try db.execute(sql: "UPDATE batch SET state = 'sending', sends = sends + 1 WHERE id = ?", arguments: [id])
        }
    }

    /// Puts batches marked as being sent, whose requests never went out (a run stopped with them still waiting their
    /// turn), back to planned, so that a resume need not look them up first.
    public func unmarkUnsent(_ ids: [Int]) throws {
        guard !ids.isEmpty else { return }
        try database.write { db in
            let statement = try db.cachedStatement(sql: "UPDATE batch SET state = 'planned', sends = max(0, sends - 1) WHERE id = ? AND state = 'sending'")
            for id in ids { try statement.execute(arguments: [id]) }
        }
    }

    /// Records what became of edits of batch `id`, and the batch's new state, in one transaction.
    /// - Parameters:
    ///   - records: The outcomes; edits not named keep theirs.
    ///   - state: `done` once every edit of the batch has an outcome; `sending` keeps it in doubt (an edit of
    ///     unknown outcome); `planned` when nothing of it can have been applied.
    public func record(batch id: Int, _ records: [EditRecord], state: JournalBatch.State) throws {
        try record([(id, records, state)])
    }

    /// Records the outcomes of several batches in one transaction (see ``record(batch:_:state:)``).
    public func record(_ outcomes: [(batch: Int, records: [EditRecord], state: JournalBatch.State)]) throws {
        guard !outcomes.isEmpty else { return }
        // A batch with an outcome is no longer all open: never sent from memory again (sending takes it out anyway).
        for outcome in outcomes { _ = plannedBatches.take(outcome.batch) }
        try database.write { db in
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
            for (id, records, state) in outcomes {
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

    /// The counts of edits by status.
    public func counts() throws -> JournalCounts {
        try database.read { db in
            var counts = JournalCounts()
            for row in try Row.fetchAll(db, sql: "SELECT status, count(*) AS n FROM edit GROUP BY status") {
                let n: Int = row["n"]
                counts.planned += n
                switch EditStatus(rawValue: row["status"]) {
                case .pending: counts.pending += n
                case .applied: counts.applied += n
                case .rejected: counts.rejected += n
                case .failed: counts.failed += n
                case .unknown: counts.unknown += n
                case nil: break
                }
            }
            return counts
        }
    }

    /// The number of input records that could not be read or fit the layer.
    public func problemCount() throws -> Int {
        try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM problem") } ?? 0
    }

    /// Calls `body` with every edit in `statuses`, in input order, a page at a time (memory stays flat).
    public func forEachEdit(in statuses: [EditStatus], _ body: (JournalEdit) throws -> Void) throws {
        let list = statuses.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        var after = -1
        while true {
            let page = try database.read { db in
                var pages = TextPages()
                return try Row.fetchAll(
                    db, sql: "SELECT \(Self.editColumns) FROM edit WHERE position > ? AND status IN (\(list)) ORDER BY position LIMIT 5000", arguments: [after]
                ).map { row in try Self.edit(row, pages: &pages, db) }
            }
            guard let last = page.last else { return }
            for edit in page { try body(edit) }
            after = last.planned.position.index
        }
    }

    /// Calls `body` with every edit that is settled as not applied and safe to apply again from its input record:
    /// rejected ones, and failed ones of batches not in doubt (no attempt may have applied them). Edits of unknown
    /// outcome, and failures that may have reached the service, are left to `--resume`, which looks them up first.
    public func forEachReject(_ body: (JournalEdit) throws -> Void) throws {
        let edits = try database.read { db in
            var pages = TextPages()
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.editColumns) FROM edit JOIN batch ON batch.id = edit.batch
                    WHERE edit.status = 'rejected' OR (edit.status = 'failed' AND batch.state = 'done')
                    ORDER BY edit.position
                    """
            ).map { row in try Self.edit(row, pages: &pages, db) }
        }
        for edit in edits { try body(edit) }
    }

    /// Calls `body` with every recorded input problem, in input order.
    public func forEachProblem(_ body: (InputProblem) throws -> Void) throws {
        let problems = try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM problem ORDER BY position").map { row in
                InputProblem(
                    position: InputPosition(index: row["position"], line: row["line"], table: row["sourceTable"]), reason: row["reason"], source: row["source"],
                    kind: (row["kind"] as String?).flatMap(InputEdit.Kind.init(rawValue:)), layer: row["layer"])
            }
        }
        for problem in problems { try body(problem) }
    }
}

/// Reads the pages of the plan's texts (``PlanTexts``) for edits read in input order: the page last read is kept, so
/// each page is read about once however many of its edits are.
struct TextPages {
    private var last: (id: Int64, texts: PlanTexts)?

    /// The payload and input record at `slot` of page `page`.
    /// - Throws: ``ApplyError/journal(_:)`` when the journal has no such page or slot (a damaged journal).
    mutating func texts(_ db: Database, page: Int64, slot: Int?) throws -> (payload: String, source: String) {
        try self.page(db, page, slot: slot).texts(at: slot ?? 0)
    }

    /// The payload at `slot` of page `page`, its input record left unread (what sending needs).
    /// - Throws: ``ApplyError/journal(_:)`` when the journal has no such page or slot (a damaged journal).
    mutating func payload(_ db: Database, page: Int64, slot: Int?) throws -> String {
        try self.page(db, page, slot: slot).payload(at: slot ?? 0)
    }

    private mutating func page(_ db: Database, _ page: Int64, slot: Int?) throws -> PlanTexts {
        guard slot != nil else { throw ApplyError.journal("an edit of the journal points into page \(page) of the plan's texts without a slot") }
        if let last, last.id == page { return last.texts }
        guard let bytes = try Data.fetchOne(db, sql: "SELECT texts FROM planText WHERE id = ?", arguments: [page]) else {
            throw ApplyError.journal("the journal has no page \(page) of the plan's texts")
        }
        let texts = try PlanTexts([UInt8](bytes))
        last = (page, texts)
        return texts
    }
}
