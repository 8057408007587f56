import BatchApply
import FeatureModel
import FeatureloadTestSupport
import Foundation
import GRDB
import Testing

/// Plain edits kept in packs, a row per batch and page instead of a row per edit: read back, recorded applied in
/// their batch's row, and unpacked into rows by any other outcome.
@Suite struct JournalPackTests {
    /// The number of rows of `table` in the journal's file.
    static func rows(_ journal: ApplyJournal, _ table: String, where condition: String = "1") throws -> Int {
        let queue = try DatabaseQueue(path: journal.path)
        defer { try? queue.close() }
        return try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table) WHERE \(condition)") } ?? 0
    }

    /// Every edit as `forEachEdit` gives it, in its order.
    static func all(_ journal: ApplyJournal, _ statuses: [EditStatus] = EditStatus.allCases) throws -> [JournalEdit] {
        var edits: [JournalEdit] = []
        try journal.forEachEdit(in: statuses) { edits.append($0) }
        return edits
    }

    /// `edits` recorded applied, object IDs from `firstObjectId` on.
    static func applied(_ edits: [JournalEdit], from firstObjectId: Int64) -> [EditRecord] {
        edits.enumerated().map { EditRecord(index: $1.planned.position.index, status: .applied, objectId: firstObjectId + Int64($0)) }
    }

    @Test("a pack holds what plans each edit: position, line, table, kind, layer, GlobalID and object ID; damaged bytes are refused")
    func packHoldsThePlan() throws {
        let directory = try TemporaryDirectory()
        let journal = try JournalAppendTests.journal(directory)
        let kinds: [InputEdit.Kind] = [.add, .update, .delete]
        let edits = (0..<30).map { index -> (edit: PlannedEdit, batch: Int?) in
            let edit = PlannedEdit(
                position: InputPosition(index: index * 3, line: index % 4 == 0 ? nil : index + 10, table: index % 5 == 0 ? "parks_é" : nil),
                kind: kinds[index % 3], layer: index % 2, globalId: index % 3 == 2 && index % 2 == 0 ? nil : "{G\(index)}",
                objectId: index % 3 == 0 ? nil : Int64(index) * 1_000_000_007, payload: "p\(index)", source: "s\(index)")
            return (edit, 0)
        }
        try journal.append(edits, batches: [(id: 0, layer: 0, useGlobalIds: true)])
        #expect(try Self.rows(journal, "edit") == 0)
        let queue = try DatabaseQueue(path: journal.path)
        let blobs = try queue.read { db in try Data.fetchAll(db, sql: "SELECT edits FROM pack ORDER BY first") }
        try queue.close()
        let entries = try blobs.flatMap { try EditPack([UInt8]($0)).entries }
        #expect(entries.count == 30)
        for (entry, (edit, _)) in zip(entries, edits) {
            #expect(entry.position == edit.position && entry.kind == edit.kind && entry.layer == edit.layer)
            #expect(entry.globalId == edit.globalId && entry.objectId == edit.objectId)
        }
        #expect(try Self.all(journal).map(\.planned) == edits.map(\.edit))
        #expect(throws: ApplyError.self) { try EditPack([1, 0, 0, 0]) }
        #expect(throws: ApplyError.self) { try EditPack(Array([UInt8](blobs[0]).dropLast())) }
        #expect(throws: ApplyError.self) { try AppliedIDs.decode([1, 2, 3]) }
    }

    @Test("a new plan's plain batches are packs, no row per edit; all applied, they stay packs, object IDs in the batch's row")
    func appliedStaysPacked() throws {
        let directory = try TemporaryDirectory()
        let journal = try JournalAppendTests.journal(directory)
        let (edits, batches) = JournalAppendTests.page(0..<250)
        try journal.append(edits, batches: batches, pageBytes: 3_000)
        try journal.finishPlan()
        #expect(try Self.rows(journal, "edit") == 0)
        #expect(try Self.rows(journal, "pack") > 3, "a pack per batch and page")
        #expect(try journal.counts().planned == 250 && journal.counts().pending == 250)
        #expect(try journal.openEditCount() == 250)

        // Batch 0 from memory; batch 2 read back from the file, with its payloads.
        let sent = try journal.startSending([0])
        #expect(sent[0].edits.map(\.planned.position.index) == Array(0..<100))
        let reopened = try ApplyJournal.open(at: journal.path)
        let third = try reopened.startSending([2])
        #expect(third[0].edits.map(\.planned.payload) == edits[200..<250].map(\.edit.payload))
        #expect(third[0].edits.allSatisfy { $0.planned.source.isEmpty && $0.status == .pending })

        try reopened.record(batch: 0, Self.applied(sent[0].edits, from: 1_000), state: .done)
        #expect(try Self.rows(reopened, "edit") == 0)
        #expect(try Self.rows(reopened, "batch", where: "applied IS NOT NULL") == 1)
        #expect(try reopened.counts().applied == 100 && reopened.counts().pending == 150)
        #expect(try reopened.openEditCount() == 150)
        #expect(try reopened.openBatches().map(\.id) == [1, 2])
        let applied = try Self.all(reopened, [.applied])
        #expect(applied.map(\.planned.position.index) == Array(0..<100))
        #expect(applied.map(\.resultObjectId) == (0..<100).map { Int64(1_000 + $0) })
        #expect(applied.map(\.planned.source) == edits[0..<100].map(\.edit.source), "input records read from their pages")
        #expect(try Self.all(reopened).map(\.planned.position.index) == Array(0..<250))
        #expect(try Self.all(reopened, [.pending]).map(\.planned.position.index) == Array(100..<250))
    }

    @Test("any other outcome unpacks the batch into rows: rejected edits for the rejects file, unknown ones left open")
    func otherOutcomesUnpack() throws {
        let directory = try TemporaryDirectory()
        let journal = try JournalAppendTests.journal(directory)
        let (edits, batches) = JournalAppendTests.page(0..<300)
        try journal.append(edits, batches: batches)
        try journal.finishPlan()
        let sent = try journal.startSending([0, 1, 2])

        // Batch 0: one edit rejected, the rest applied.
        var records = Self.applied(sent[0].edits, from: 1)
        records[7] = EditRecord(index: 7, status: .rejected, code: 1000, reason: "the name is too long")
        try journal.record(batch: 0, records, state: .done)
        // Batch 1: half applied, half of unknown outcome: still in doubt.
        var doubtful = Self.applied(Array(sent[1].edits.prefix(50)), from: 500)
        doubtful += sent[1].edits.dropFirst(50).map { EditRecord(index: $0.planned.position.index, status: .unknown, reason: "connection dropped") }
        try journal.record(batch: 1, doubtful, state: .sending)
        // Batch 2: nothing recorded, put back to planned: stays packed.
        try journal.record(batch: 2, [], state: .planned)

        #expect(try Self.rows(journal, "edit") == 200)
        #expect(try Self.rows(journal, "pack", where: "batch IN (0, 1)") == 0)
        #expect(try Self.rows(journal, "pack", where: "batch = 2") > 0)
        let counts = try journal.counts()
        #expect(counts.applied == 149 && counts.rejected == 1 && counts.unknown == 50 && counts.pending == 100 && counts.planned == 300, "\(counts)")
        var rejects: [JournalEdit] = []
        try journal.forEachReject { rejects.append($0) }
        #expect(rejects.map(\.planned.position.index) == [7])
        #expect(rejects.first?.planned.source == edits[7].edit.source && rejects.first?.code == 1000)
        #expect(try journal.openBatches().map(\.id) == [1, 2])
        let open = try journal.batch(1).edits
        #expect(open.map(\.planned.position.index) == Array(150..<200) && open.allSatisfy { $0.status == .unknown })
        #expect(try journal.batch(2).edits.map(\.planned.payload) == edits[200..<300].map(\.edit.payload))
        #expect(try Self.all(journal).map(\.planned.position.index) == Array(0..<300))
        #expect(try Self.all(journal, [.applied]).map(\.resultObjectId).prefix(8) == [1, 2, 3, 4, 5, 6, 7, 9])
    }

    @Test("grouped edits are rows beside the packs of plain ones, read in input order alike")
    func rowsBesidePacks() throws {
        let directory = try TemporaryDirectory()
        let journal = try JournalAppendTests.journal(directory)
        var (edits, batches) = JournalAppendTests.page(0..<200)
        for index in stride(from: 3, to: 200, by: 10) {
            edits[index].edit.group = index
            edits[index].batch = nil
        }
        try journal.append(edits, batches: batches)
        try journal.assign(stride(from: 3, to: 200, by: 10).map { (position: $0, group: $0, batch: 2) }, batches: [(id: 2, layer: 0)])
        #expect(try Self.rows(journal, "edit") == 20)
        let back = try Self.all(journal)
        #expect(back.map(\.planned.position.index) == Array(0..<200))
        #expect(back.map(\.planned) == edits.map(\.edit))
        #expect(try journal.batch(2).edits.count == 20 && journal.batch(0).edits.count == 90)
    }

    @Test("small batches are rows: fewer than 16 new edits of a batch in an append; a batch keeps the way it started")
    func smallBatchesAreRows() throws {
        let directory = try TemporaryDirectory()
        let journal = try JournalAppendTests.journal(directory)
        let (edits, _) = JournalAppendTests.page(0..<60)
        // Batch 0 starts with 10 edits (rows), batch 1 with 20 (a pack); each takes 5 more in the next append.
        let first = edits[0..<30].map { (edit: $0.edit, batch: Optional($0.edit.position.index < 10 ? 0 : 1)) }
        try journal.append(first, batches: [(id: 0, layer: 0, useGlobalIds: true), (id: 1, layer: 0, useGlobalIds: true)])
        let second = edits[30..<40].map { (edit: $0.edit, batch: Optional($0.edit.position.index < 35 ? 0 : 1)) }
        try journal.append(second, batches: [])
        // Batches of one edit each.
        let ones = edits[40..<60].map { (edit: $0.edit, batch: Optional($0.edit.position.index - 38)) }
        try journal.append(ones, batches: (2..<22).map { (id: $0, layer: 0, useGlobalIds: true) })
        #expect(try Self.rows(journal, "edit", where: "batch = 0") == 15)
        #expect(try Self.rows(journal, "edit", where: "batch = 1") == 0 && Self.rows(journal, "pack", where: "batch = 1") == 2)
        #expect(try Self.rows(journal, "edit", where: "batch >= 2") == 20 && Self.rows(journal, "pack", where: "batch >= 2") == 0)
        #expect(try journal.batch(1).edits.map(\.planned.position.index) == Array(10..<30) + Array(35..<40))
        #expect(try Self.all(journal).map(\.planned) == edits.map(\.edit))
    }

    @Test("a damaged pack is an error when its batch is unpacked, and the outcome's transaction leaves the journal as it was")
    func damagedPackIsAnError() throws {
        let directory = try TemporaryDirectory()
        let journal = try JournalAppendTests.journal(directory)
        let (edits, batches) = JournalAppendTests.page(0..<100)
        try journal.append(edits, batches: batches)
        let sent = try journal.startSending([0])
        let queue = try DatabaseQueue(path: journal.path)
        // One more edit than the pack holds, with a slot for it: only the count of its entries tells.
        try queue.write { db in
            let slots = try Data.fetchOne(db, sql: "SELECT slots FROM pack") ?? Data()
            try db.execute(sql: "UPDATE pack SET count = count + 1, slots = ?", arguments: [slots + Data([0, 0, 0, 0])])
        }
        try queue.close()
        var records = Self.applied(sent[0].edits, from: 1)
        records[3] = EditRecord(index: 3, status: .rejected, code: 1000, reason: "refused")
        #expect(throws: ApplyError.self) { try journal.record(batch: 0, records, state: .done) }
        #expect(try Self.rows(journal, "edit") == 0 && Self.rows(journal, "pack") == 1)
        #expect(try journal.openBatches().map(\.id) == [0])
    }
}
