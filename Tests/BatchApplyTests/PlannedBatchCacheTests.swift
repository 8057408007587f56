import FeatureModel
import FeatureloadTestSupport
import Testing

@testable import BatchApply

@Suite struct PlannedBatchCacheTests {
    static func edit(_ index: Int, payload: String = "{}") -> PlannedEdit {
        PlannedEdit(
            position: InputPosition(index: index, line: index + 1), kind: .add, layer: 0, globalId: "{\(index)}", objectId: nil, payload: payload,
            source: "record \(index)")
    }

    @Test("a batch whose rows were all inserted now is given once, in plan order, without its input text")
    func keepsFreshBatches() {
        let cache = PlannedBatchCache()
        // Batch 0 spans two pages.
        cache.keep([(Self.edit(0), 0, true), (Self.edit(1), 0, true)])
        cache.keep([(Self.edit(2), 0, true), (Self.edit(3), 1, true)])
        let first = cache.take(0)
        #expect(first?.map(\.planned.position.index) == [0, 1, 2])
        #expect(first?.allSatisfy { $0.planned.source.isEmpty && $0.planned.position.line == nil && $0.status == .pending && $0.batch == 0 } == true)
        #expect(first?.map(\.planned.globalId) == ["{0}", "{1}", "{2}"])
        #expect(cache.take(0) == nil, "given once")
        #expect(cache.take(1)?.count == 1)
        #expect(cache.take(7) == nil, "never kept")
    }

    @Test("a batch with a row planned before (it may carry an outcome) is read from the journal")
    func refusesReplannedBatches() {
        let cache = PlannedBatchCache()
        cache.keep([(Self.edit(0), 0, true), (Self.edit(1), 0, false), (Self.edit(2), 0, true), (Self.edit(3), 1, true)])
        #expect(cache.take(0) == nil)
        #expect(cache.take(1)?.count == 1)
    }

    @Test("memory stays bounded: a batch that does not fit is read from the journal, and taking one makes room")
    func boundedByCapacity() {
        let payload = String(repeating: "x", count: 872)  // 1,000 bytes with the per-edit allowance
        let cache = PlannedBatchCache(capacity: 3_000)
        cache.keep([(Self.edit(0, payload: payload), 0, true), (Self.edit(1, payload: payload), 0, true)])
        cache.keep([(Self.edit(2, payload: payload), 1, true), (Self.edit(3, payload: payload), 1, true)])
        #expect(cache.take(1) == nil, "the second batch did not fit")
        #expect(cache.take(0)?.count == 2)
        cache.keep([(Self.edit(4, payload: payload), 2, true), (Self.edit(5, payload: payload), 2, true)])
        #expect(cache.take(2)?.count == 2, "room again once the first was taken")
    }

    @Test("after the plan's rows change, nothing kept is given")
    func forgetsAll() {
        let cache = PlannedBatchCache()
        cache.keep([(Self.edit(0), 0, true), (Self.edit(1), 1, true)])
        cache.forgetAll()
        #expect(cache.take(0) == nil && cache.take(1) == nil)
    }
}

/// The cache in use: batches sent from memory are exactly those the journal reads back.
@Suite struct PlannedBatchesThroughJournalTests {
    @Test("a planned batch sent from memory is the batch the journal gives: the same edits, in the same order, with the same fields")
    func sameAsJournal() throws {
        let directory = try TemporaryDirectory()
        let layer = LayerInfo(
            id: 0, name: "parks", type: "Table", geometryType: nil, objectIdField: "OBJECTID", globalIdField: "GlobalID",
            fields: [
                Field(name: "OBJECTID", type: .oid, nullable: false, editable: false),
                Field(name: "GlobalID", type: .globalID, length: 38, nullable: false, editable: false),
                Field(name: "name", type: .string, length: 50),
            ])
        let header = JournalHeader(
            input: "parks.geojsonl", inputSize: 0, target: "http://127.0.0.1:9/arcgis/rest/services/parks/FeatureServer", layer: 0,
            objectIdField: "OBJECTID", globalIdField: "GlobalID", settings: ApplySettings(batchSize: 7, concurrency: 1),
            reading: JournalHeader.Reading(format: .geojson, options: InputOptions(), skipInvalid: false))
        let journal = try ApplyJournal.create(at: directory.path + "/apply.journal", header: header)
        // Adds (derived GlobalIDs), updates by object ID and deletes: batches of each kind, some not full.
        var records: [Result<InputEdit, InputProblem>] = []
        for index in 0..<40 {
            let (kind, attributes): (InputEdit.Kind, [String: JSONValue]) =
                switch index % 4 {
                case 0, 1: (.add, ["name": .string("Park \(index)")])
                case 2: (.update, ["OBJECTID": .int(Int64(1_000 + index)), "name": .string("Renamed \(index)")])
                default: (.delete, ["OBJECTID": .int(Int64(2_000 + index))])
                }
            records.append(
                .success(
                    InputEdit(
                        kind: kind, feature: Feature(attributes: attributes), position: InputPosition(index: index, line: index + 1),
                        source: "record \(index)")))
        }
        var source = ArrayEditReader(records)
        let summary = try ApplyPlanner(layers: [0: layer], defaultLayer: 0, batchSize: 7).plan(&source, into: journal)
        #expect(summary.problemCount == 0, "\(summary.problems)")
        try journal.finishPlan()
        let ids = try journal.openBatches().map(\.id)
        let fromMemory = try journal.startSending(ids)
        let fromJournal = try ApplyJournal.open(at: journal.path).startSending(ids)
        #expect(fromMemory.flatMap(\.edits).count == 40)
        #expect(fromMemory == fromJournal)
        // Given once: sending them again reads them from the journal.
        #expect(try journal.startSending(ids) == fromJournal)
    }
}

extension PlannedBatchCache {
    /// Keeps `rows`, each with its batch and whether its row was inserted.
    fileprivate func keep(_ rows: [(edit: PlannedEdit, batch: Int, inserted: Bool)]) {
        keep(rows.map { (edit: $0.edit, batch: Optional($0.batch)) }, inserted: rows.map(\.inserted))
    }
}
