import Foundation
import FeatureServiceClient
import GRDB

/// Packed edits (``EditPack``): read as journal edits, found by position, and unpacked into rows.
extension ApplyJournal {
    /// Which texts of packed edits to read.
    enum PackTexts {
        /// None: the edits' payloads and input records are left empty.
        case none
        /// The payload, which sending needs.
        case payload
        /// The payload and the input record.
        case both
    }

    /// The packed edits of the packs that `condition` (SQL over `pack` and its `batch`) selects, in the packs' input
    /// order, each pending, or applied with its object ID once its batch is.
    static func packedEdits(_ db: Database, where condition: String, arguments: StatementArguments = [], texts: PackTexts) throws -> [JournalEdit] {
        var edits: [JournalEdit] = []
        var pages = TextPages()
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
            guard pack.entries.count == count else { throw ApplyError.journal("a pack of batch \(batch + 1) holds \(pack.entries.count) edits, not \(count)") }
            if applied?.batch != batch { applied = (batch, try (row[5] as Data?).map { try AppliedIDs.decode([UInt8]($0)) }) }
            for (entry, slot) in zip(pack.entries, slots) {
                var (payload, source) = ("", "")
                switch texts {
                case .none: break
                case .payload: payload = try pages.payload(db, page: page, slot: slot)
                case .both: (payload, source) = try pages.texts(db, page: page, slot: slot)
                }
                let planned = PlannedEdit(
                    position: entry.position, kind: entry.kind, layer: entry.layer, globalId: entry.globalId, objectId: entry.objectId, payload: payload,
                    source: source)
                if let ids = applied?.ids {
                    guard let objectId = ids[entry.position.index] else {
                        throw ApplyError.journal("batch \(batch + 1) is recorded applied without an object ID for record \(entry.position.index + 1)")
                    }
                    edits.append(JournalEdit(planned: planned, batch: batch, status: .applied, resultObjectId: objectId))
                } else {
                    edits.append(JournalEdit(planned: planned, batch: batch, status: .pending))
                }
            }
        }
        return edits
    }

    /// The input positions of the edits packed in batch `id`, none when it has no packs.
    static func packedPositions(_ db: Database, batch id: Int) throws -> [Int] {
        var positions: [Int] = []
        for bytes in try Data.fetchAll(db, sql: "SELECT edits FROM pack WHERE batch = ? ORDER BY first", arguments: [id]) {
            positions += try EditPack([UInt8](bytes)).entries.map(\.position.index)
        }
        return positions
    }

    /// The batches with a pack that holds any of `positions`.
    static func packedBatches(_ db: Database, holding positions: [Int]) throws -> Set<Int> {
        guard let low = positions.min(), let high = positions.max() else { return [] }
        let wanted = Set(positions)
        var batches: Set<Int> = []
        for row in try Row.fetchAll(db, sql: "SELECT batch, edits FROM pack WHERE \(packOverlaps("?1", "?2"))", arguments: [low, high]) {
            if try EditPack([UInt8](row[1] as Data)).entries.contains(where: { wanted.contains($0.position.index) }) { batches.insert(row[0]) }
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
        for row in try Row.fetchAll(
            db, sql: "SELECT pack.text, pack.edits, pack.slots, pack.count, batch.applied FROM pack JOIN batch ON batch.id = pack.batch WHERE pack.batch = ?",
            arguments: [id])
        {
            let (page, count): (Int64, Int) = (row[0], row[3])
            let pack = try EditPack([UInt8](row[1] as Data))
            let slots = try EditPack.slots([UInt8](row[2] as Data), count: count)
            guard pack.entries.count == count else { throw ApplyError.journal("a pack of batch \(id + 1) holds \(pack.entries.count) edits, not \(count)") }
            let applied = try (row[4] as Data?).map { try AppliedIDs.decode([UInt8]($0)) }
            for (entry, slot) in zip(pack.entries, slots) {
                let objectId = applied?[entry.position.index]
                if applied != nil && objectId == nil {
                    throw ApplyError.journal("batch \(id + 1) is recorded applied without an object ID for record \(entry.position.index + 1)")
                }
                try statement.execute(binding:
                    entry.position.index, entry.position.line, entry.position.table, id, entry.kind.rawValue, entry.layer, entry.globalId, entry.objectId,
                    objectId == nil ? EditStatus.pending.rawValue : EditStatus.applied.rawValue, objectId, page, slot)
            }
        }
        try db.execute(sql: "DELETE FROM pack WHERE batch = ?; UPDATE batch SET applied = NULL WHERE id = ?", arguments: [id, id])
    }
}
