import FeatureServiceClient
import Foundation
import GRDB
import SQLiteSupport

/// Packed edits (``EditPack``): read as journal edits, found by position, and unpacked into rows.
extension ApplyJournal {
    /// Which texts of packed edits to read.
    enum PackTexts {
        /// The payload, which sending needs (the input record is left empty).
        case payload
        /// The payload and the input record.
        case both
    }

    /// Calls `body` with each edit of the packs that `condition` (SQL over `pack` and its `batch`) selects, in the
    /// packs' input order: its batch, what plans it, the page and slot of its texts, and its object ID once its batch
    /// is recorded applied.
    /// - Throws: ``ApplyError/journal(_:)`` for a damaged pack: entries and slots that disagree with its count, or an
    ///   applied batch without an edit's object ID.
    static func forEachPacked(
        _ db: Database, where condition: String, arguments: StatementArguments = [],
        _ body: (_ batch: Int, _ entry: EditPack.Entry, _ text: (page: Int64, slot: Int), _ objectId: Int64?) throws -> Void
    ) throws {
        var applied: (batch: Int, ids: [Int: Int64]?)?
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT pack.batch, pack.text, pack.edits, pack.slots, pack.count, batch.applied FROM pack JOIN batch ON batch.id = pack.batch
                WHERE \(condition) ORDER BY pack.first, pack.batch
                """,
            arguments: arguments)
        while let row = try rows.next() {
            let (batch, page, count): (Int, Int64, Int) = (row[0], row[1], row[4])
            let pack = try EditPack([UInt8](row[2] as Data))
            let slots = try EditPack.slots([UInt8](row[3] as Data), count: count)
            guard pack.entries.count == count else {
                throw ApplyError.journal("a pack of batch \(batch + 1) holds \(pack.entries.count) edits, not \(count)")
            }
            if applied?.batch != batch { applied = (batch, try (row[5] as Data?).map { try AppliedIDs.decode([UInt8]($0)) }) }
            for (entry, slot) in zip(pack.entries, slots) {
                var objectId: Int64?
                if let ids = applied?.ids {
                    guard let id = ids[entry.position.index] else {
                        throw ApplyError.journal("batch \(batch + 1) is recorded applied without an object ID for record \(entry.position.index + 1)")
                    }
                    objectId = id
                }
                try body(batch, entry, (page, slot), objectId)
            }
        }
    }

    /// The packed edits of the packs that `condition` selects (see ``forEachPacked(_:where:arguments:_:)``), each
    /// pending, or applied with its object ID once its batch is, with `texts` read.
    static func packedEdits(_ db: Database, where condition: String, arguments: StatementArguments = [], texts: PackTexts) throws -> [JournalEdit] {
        var edits: [JournalEdit] = []
        var pages = TextPages()
        try forEachPacked(db, where: condition, arguments: arguments) { batch, entry, text, objectId in
            var (payload, source) = ("", "")
            switch texts {
            case .payload: payload = try pages.payload(db, page: text.page, slot: text.slot)
            case .both: (payload, source) = try pages.texts(db, page: text.page, slot: text.slot)
            }
            let planned = PlannedEdit(
                position: entry.position, kind: entry.kind, layer: entry.layer, globalId: entry.globalId, objectId: entry.objectId, payload: payload,
                source: source)
            edits.append(JournalEdit(planned: planned, batch: batch, status: objectId == nil ? .pending : .applied, resultObjectId: objectId))
        }
        return edits
    }

    /// The input positions of the edits packed in batch `id`, none when it has no packs.
    static func packedPositions(_ db: Database, batch id: Int) throws -> [Int] {
        var positions: [Int] = []
        // Cached: asked once for every batch recorded.
        for bytes in try Data.fetchAll(db.cachedStatement(sql: "SELECT edits FROM pack WHERE batch = ? ORDER BY first"), arguments: [id]) {
            positions += try EditPack.positions([UInt8](bytes))
        }
        return positions
    }

    /// The batches with a pack that holds any of `positions`.
    static func packedBatches(_ db: Database, holding positions: [Int]) throws -> Set<Int> {
        guard let low = positions.min(), let high = positions.max() else { return [] }
        let wanted = Set(positions)
        var batches: Set<Int> = []
        for row in try Row.fetchAll(db, sql: "SELECT batch, edits FROM pack WHERE \(packOverlaps("?1", "?2"))", arguments: [low, high]) {
            if try EditPack.positions([UInt8](row[1] as Data)).contains(where: wanted.contains) { batches.insert(row[0]) }
        }
        return batches
    }

    /// Turns the packs of batch `id` into a row per edit (with its outcome, when the batch is recorded applied), as the
    /// journal keeps edits whose outcomes differ. Nothing changes for a batch without packs.
    static func unpack(_ db: Database, batch id: Int) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO edit (position, line, sourceTable, batch, kind, layer, globalId, objectId, payload, source, status, resultObjectId, text, slot)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, '', '', ?, ?, ?, ?)
                """)
        try forEachPacked(db, where: "pack.batch = ?", arguments: [id]) { _, entry, text, objectId in
            try statement.execute(
                binding:
                    entry.position.index, entry.position.line, entry.position.table, id, entry.kind.rawValue, entry.layer, entry.globalId,
                entry.objectId,
                objectId == nil ? EditStatus.pending.rawValue : EditStatus.applied.rawValue, objectId, text.page, text.slot)
        }
        try db.execute(sql: "DELETE FROM pack WHERE batch = ?; UPDATE batch SET applied = NULL WHERE id = ?", arguments: [id, id])
    }
}
