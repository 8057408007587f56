import FeatureServiceClient
import Foundation
import GRDB
import SQLiteSupport

/// The journal of one `featureload apply`: an SQLite file (WAL) that holds the plan — every edit with its batch,
/// client-assigned GlobalID and input position — before anything is sent, and each edit's outcome after.
///
/// Plain edits are kept in packs, the edits of a batch that one append wrote in one row (``EditPack``), and their
/// texts in pages (``PlanTexts``); a batch all of whose edits are applied records their object IDs in its own row.
/// Edits of groups (a parent with its related records and files), and of batches with any other outcome, have a row
/// each.
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
/// for batch in try journal.startSending(journal.openBatches().map(\.id)) { … try journal.record(batch: batch.id, outcomes, state: .done) }
/// ```
package final class ApplyJournal: Sendable {
    /// The journal's file.
    package let path: String
    let database: DatabaseQueue
    /// Plain batches this process planned, sent without reading them back (``startSending(_:)``).
    let plannedBatches = PlannedBatchCache()

    /// The schema version this code writes and reads.
    package static let version = 5

    /// An SQL condition: the pack's positions reach into `low...high` (SQL expressions). The index on `first` bounds it,
    /// since no pack spans more than `run.packSpan` positions: a look-up reads the packs near the range, not every
    /// pack after it.
    static func packOverlaps(_ low: String, _ high: String) -> String {
        "pack.first BETWEEN \(low) - (SELECT packSpan FROM run WHERE id = 1) AND \(high) AND pack.last >= \(low)"
    }

    /// The open statuses (``EditStatus/isOpen``) as an SQL list.
    static let openStatuses = "(" + EditStatus.allCases.filter(\.isOpen).map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"

    /// Keeps the write-ahead log short, so that closing the journal has little left to copy.
    private let checkpointer: WALCheckpointer?

    private init(path: String, database: DatabaseQueue) {
        self.path = path
        self.database = database
        checkpointer = WALCheckpointer(path: path, label: "featureload.journal-checkpoint")
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
    package static func create(at path: String, header: JournalHeader) throws -> ApplyJournal {
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
                try db.execute(sql: schema)
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
    package static func open(at path: String) throws -> ApplyJournal {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ApplyError.journal(
                "no journal at \(path). Fix: give the journal an earlier `featureload apply` wrote (its --journal, by default <input>.journal)")
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
            if version == 4 {
                try migrateFromVersion4(database)
                version = 5
            }
            guard version == Self.version else {
                throw ApplyError.journal(
                    "\(path) is a journal of version \(version.map(String.init) ?? "?"), this featureload reads version \(Self.version)")
            }
            try checkStatuses(database, path: path)
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

    /// Version 4 kept a row per edit: adds the packs, none, and the column of a packed batch's outcome. Batches
    /// planned then keep their rows.
    static func migrateFromVersion4(_ database: DatabaseQueue) throws {
        try database.write { db in
            try db.execute(
                sql:
                    "\(packTable) ALTER TABLE batch ADD COLUMN applied BLOB; ALTER TABLE run ADD COLUMN packSpan INTEGER NOT NULL DEFAULT 0; UPDATE run SET version = 5 WHERE id = 1;"
            )
        }
    }

    /// The run's header.
    package func header() throws -> JournalHeader {
        let json = try database.read { db in try String.fetchOne(db, sql: "SELECT header FROM run WHERE id = 1") } ?? "{}"
        return try JSONDecoder().decode(JournalHeader.self, from: Data(json.utf8))
    }

    /// Replaces the run's header (what planning learnt of the input, such as the CSV header row).
    package func update(_ header: JournalHeader) throws {
        let json = String(decoding: try JSONEncoder().encode(header), as: UTF8.self)
        try database.write { db in try db.execute(sql: "UPDATE run SET header = ? WHERE id = 1", arguments: [json]) }
    }

    /// Whether the plan was written completely (sending starts only then).
    package func isPlanned() throws -> Bool {
        try database.read { db in try Bool.fetchOne(db, sql: "SELECT planned FROM run WHERE id = 1") } ?? false
    }

    /// Drops a plan that was interrupted before it was complete (nothing of it was sent), to plan again.
    package func discardPlan() throws {
        try database.write { db in
            try db.execute(
                sql:
                    "DELETE FROM attachment; DELETE FROM edit; DELETE FROM pack; DELETE FROM planText; DELETE FROM batch; DELETE FROM problem; UPDATE run SET planned = 0"
            )
        }
        plannedBatches.forgetAll()
    }
}
