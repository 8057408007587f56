import BatchApply
import FeatureModel
import FeatureloadTestSupport
import Foundation
import GRDB
import Testing

/// Writing the plan: rows of a new plan many to a statement, rows of a plan made again one by one and checked.
@Suite struct JournalAppendTests {
    static func journal(_ directory: TemporaryDirectory) throws -> ApplyJournal {
        let header = JournalHeader(
            input: "parks.geojsonl", inputSize: 0, target: "http://127.0.0.1:9/arcgis/rest/services/parks/FeatureServer", layer: 0,
            objectIdField: "OBJECTID", globalIdField: "GlobalID", settings: ApplySettings(batchSize: 100, concurrency: 1),
            reading: JournalHeader.Reading(format: .geojsonSeq, options: InputOptions(), skipInvalid: false))
        return try ApplyJournal.create(at: directory.path + "/apply.journal", header: header)
    }

    /// Adds at positions `range`, 100 to a batch, each with texts of its own (some multi-byte, some empty).
    static func page(
        _ range: Range<Int>, globalIdPrefix: String = "G"
    ) -> (edits: [(edit: PlannedEdit, batch: Int?)], batches: [(id: Int, layer: Int, useGlobalIds: Bool)]) {
        let edits = range.map { index -> (edit: PlannedEdit, batch: Int?) in
            let edit = PlannedEdit(
                position: InputPosition(index: index, line: index + 1), kind: .add, layer: 0, globalId: "{\(globalIdPrefix)\(index)}", objectId: nil,
                payload: index % 7 == 0 ? "" : "{\"attributes\":{\"name\":\"Park \(index) ö\"}}", source: index % 5 == 0 ? "" : "record \(index) 東")
            return (edit, index / 100)
        }
        let batches = Set(range.map { $0 / 100 }).sorted().map { (id: $0, layer: 0, useGlobalIds: true) }
        return (edits, batches)
    }

    /// Every planned edit as the journal gives it back for sending (read from the file, not from memory).
    static func readBack(_ journal: ApplyJournal) throws -> [Int: PlannedEdit] {
        let reopened = try ApplyJournal.open(at: journal.path)
        var edits: [Int: PlannedEdit] = [:]
        try reopened.forEachEdit(in: [.pending]) { edits[$0.planned.position.index] = $0.planned }
        return edits
    }

    /// Pages of texts in the journal.
    static func pageCount(_ journal: ApplyJournal) throws -> Int {
        let queue = try DatabaseQueue(path: journal.path)
        defer { try? queue.close() }
        return try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM planText") } ?? 0
    }

    @Test(
        "a new plan's rows, 50 to a statement and the rest one by one, read back with their texts, lines and GlobalIDs, in one page or many",
        arguments: [PlanTexts.pageBytes, 1_000])
    func newPlan(pageBytes: Int) throws {
        let directory = try TemporaryDirectory()
        let journal = try Self.journal(directory)
        // 2,345 edits in two appends: full statements of 50 and a tail in each.
        for range in [0..<1_234, 1_234..<2_345] {
            let (edits, batches) = Self.page(range)
            try journal.append(edits, batches: batches, pageBytes: pageBytes)
        }
        let pages = try Self.pageCount(journal)
        #expect(pageBytes == PlanTexts.pageBytes ? pages == 2 : pages > 50, "\(pages) pages")
        let back = try Self.readBack(journal)
        #expect(back.count == 2_345)
        for (edit, _) in Self.page(0..<2_345).edits {
            #expect(back[edit.position.index] == edit, "record \(edit.position.index)")
        }
        #expect(try journal.counts().planned == 2_345)
    }

    @Test(
        "a page planned again over its rows keeps them (and no second copy of their texts); a new page beside old rows adds its own; one that plans differently is refused"
    )
    func planAgain() throws {
        let directory = try TemporaryDirectory()
        let journal = try Self.journal(directory)
        let (first, firstBatches) = Self.page(0..<300)
        try journal.append(first, batches: firstBatches, pageBytes: 2_000)
        try journal.finishPlan()
        let pages = try Self.pageCount(journal)
        // The same page again, as a resume that plans the input again does: nothing new is kept.
        try journal.append(first, batches: firstBatches, pageBytes: 2_000)
        #expect(try Self.pageCount(journal) == pages)
        // Half of it old, half new.
        let (overlap, overlapBatches) = Self.page(200..<500)
        try journal.append(overlap, batches: overlapBatches, pageBytes: 2_000)
        let back = try Self.readBack(journal)
        #expect(back.count == 500)
        for (edit, _) in Self.page(0..<500).edits { #expect(back[edit.position.index] == edit, "record \(edit.position.index)") }
        // Batches of rows that were there already are read from the journal, and are the same.
        let sent = try journal.startSending([0, 1, 2, 3, 4])
        #expect(sent.flatMap(\.edits).map(\.planned.position.index) == Array(0..<500))
        // A record that now gets another GlobalID: the input changed since the plan was interrupted.
        let (changed, changedBatches) = Self.page(250..<260, globalIdPrefix: "H")
        #expect(throws: ApplyError.self) { try journal.append(changed, batches: changedBatches) }
        #expect(try Self.readBack(journal)[250]?.globalId == "{G250}")
    }

    @Test("a record taken out of the plan keeps its input text as a problem, read from its page")
    func removedKeepsSource() throws {
        let directory = try TemporaryDirectory()
        let journal = try Self.journal(directory)
        let (edits, batches) = Self.page(0..<120)
        try journal.append(edits, batches: batches, pageBytes: 1_000)
        try journal.remove([(position: 7, reason: "its parent is invalid"), (position: 101, reason: "its parent is invalid")], asProblems: true)
        var problems: [InputProblem] = []
        try journal.forEachProblem { problems.append($0) }
        #expect(problems.map(\.position.index) == [7, 101])
        #expect(problems.map(\.source) == [edits[7].edit.source, edits[101].edit.source])
        #expect(problems.map(\.position.line) == [8, 102])
        #expect(try journal.counts().planned == 118)
    }

    @Test("a version-3 journal planned again by this version: rows with their texts inline and rows with pages, in the same batches, read back alike")
    func versionThreeRowsBesidePages() async throws {
        let directory = try TemporaryDirectory()
        let path: String
        do {
            let journal = try Self.journal(directory)
            let (first, firstBatches) = Self.page(0..<250)
            try journal.append(first, batches: firstBatches)
            path = journal.path
        }
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in try JournalMigrationTests.writeAsVersion3(db) }
        try queue.close()
        let journal = try ApplyJournal.open(at: path)
        let (overlap, overlapBatches) = Self.page(150..<400)
        try journal.append(overlap, batches: overlapBatches)
        let back = try Self.readBack(journal)
        #expect(back.count == 400)
        for (edit, _) in Self.page(0..<400).edits { #expect(back[edit.position.index] == edit, "record \(edit.position.index)") }
        let sent = try journal.startSending([2])
        #expect(sent.first?.edits.map(\.planned.payload) == Self.page(200..<300).edits.map(\.edit.payload))
    }

    @Test("edits not in rising positions (and none at all) are planned as well: row by row, read back alike")
    func unordered() throws {
        let directory = try TemporaryDirectory()
        let journal = try Self.journal(directory)
        try journal.append([], batches: [])
        let (edits, batches) = Self.page(0..<120)
        try journal.append(edits.reversed(), batches: batches)
        let back = try Self.readBack(journal)
        #expect(back.count == 120)
        for (edit, _) in edits { #expect(back[edit.position.index] == edit, "record \(edit.position.index)") }
    }
}
