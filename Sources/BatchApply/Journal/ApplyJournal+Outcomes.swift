import FeatureServiceClient
import Foundation
import GRDB

/// What the journal holds once sent: counts, and the edits and problems for verification and the rejects file.
extension ApplyJournal {
    /// The number of files planned to be attached, and of those found attached.
    package func attachmentCounts() throws -> (planned: Int, applied: Int) {
        try database.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT count(*), coalesce(sum(status = 'applied'), 0) FROM attachment")
            return (row?[0] ?? 0, row?[1] ?? 0)
        }
    }

    /// The counts of edits by status.
    package func counts() throws -> JournalCounts {
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
            // Packed edits: pending until their batch is recorded applied.
            for row in try Row.fetchAll(
                db,
                sql:
                    "SELECT batch.applied IS NOT NULL, sum(pack.count) FROM pack JOIN batch ON batch.id = pack.batch GROUP BY batch.applied IS NOT NULL"
            ) {
                let (applied, n): (Bool, Int) = (row[0], row[1])
                counts.planned += n
                if applied { counts.applied += n } else { counts.pending += n }
            }
            return counts
        }
    }

    /// The number of input records that could not be read or fit the layer.
    package func problemCount() throws -> Int {
        try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM problem") } ?? 0
    }

    /// Calls `body` with every edit in `statuses`, in input order, a page at a time (memory stays flat).
    package func forEachEdit(in statuses: [EditStatus], _ body: (JournalEdit) throws -> Void) throws {
        let list = statuses.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        let wanted = Set(statuses)
        // Rows and packs, a window of input positions at a time.
        let window = 5000
        var after = -1
        while true {
            let (page, more) = try database.read { db in
                var pages = TextPages()
                let end = after + window
                var edits = try Row.fetchAll(
                    db, sql: "SELECT \(Self.editColumns) FROM edit WHERE position > ? AND position <= ? AND status IN (\(list)) ORDER BY position",
                    arguments: [after, end]
                ).map { row in try Self.edit(row, pages: &pages, db) }
                if wanted.contains(.pending) || wanted.contains(.applied) {
                    let packed = try Self.packedEdits(db, where: Self.packOverlaps("?1", "?2"), arguments: [after + 1, end], texts: .both).filter {
                        $0.planned.position.index > after && $0.planned.position.index <= end && wanted.contains($0.status)
                    }
                    if !packed.isEmpty { edits = (edits + packed).sorted { $0.planned.position.index < $1.planned.position.index } }
                }
                let more =
                    try Bool.fetchOne(
                        db, sql: "SELECT EXISTS (SELECT 1 FROM edit WHERE position > ?1) OR EXISTS (SELECT 1 FROM pack WHERE last > ?1)",
                        arguments: [end]) ?? false
                return (edits, more)
            }
            for edit in page { try body(edit) }
            guard more else { return }
            after += window
        }
    }

    /// Calls `body` with every edit that is settled as not applied and safe to apply again from its input record:
    /// rejected ones, and failed ones of batches not in doubt (no attempt may have applied them). Edits of unknown
    /// outcome, and failures that may have reached the service, are left to `--resume`, which looks them up first.
    package func forEachReject(_ body: (JournalEdit) throws -> Void) throws {
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
    package func forEachProblem(_ body: (InputProblem) throws -> Void) throws {
        let problems = try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM problem ORDER BY position").map { row in
                InputProblem(
                    position: InputPosition(index: row["position"], line: row["line"], table: row["sourceTable"]), reason: row["reason"],
                    source: row["source"],
                    kind: (row["kind"] as String?).flatMap(InputEdit.Kind.init(rawValue:)), layer: row["layer"])
            }
        }
        for problem in problems { try body(problem) }
    }
}
