import BatchApply
import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import LocalFeatureServer
import Testing

/// Records are decoded and checked on several threads while planning; the plan must not depend on how many. The
/// layer comes from the real local service; the journals are real SQLite files.
@Suite struct ParallelCheckingTests {
    typealias Support = BatchApplierIntegrationTests

    /// Newline-delimited GeoJSON of `count` records: adds, some with their own GlobalID and later updated through it, a
    /// repeated GlobalID, unreadable lines, values of the wrong type, and blank lines; with the records that are
    /// problems, in order.
    static func input(_ count: Int) -> (bytes: [UInt8], problems: [Int]) {
        var lines: [String] = []
        var problems: [Int] = []
        var given: Set<Int> = []
        func globalId(_ index: Int) -> String { String(format: "{%08X-0000-4000-8000-%012X}", index, index) }
        for index in 0..<count {
            switch index {
            case _ where index % 97 == 5:
                problems.append(index)
                lines.append(#"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [-120.0, 36.0]}, "properties": {"name": "#)
            case _ where index % 89 == 7:
                problems.append(index)
                lines.append(
                    #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [-120.0, 36.0]}, "properties": {"name": "P", "visitors": "many"}}"#
                )
            case _ where index % 100 == 10:
                // An add with its own GlobalID, updated by a record in a later batch.
                given.insert(index)
                lines.append(
                    #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [-121.0, 37.0]}, "properties": {"name": "Given \#(index)", "GlobalID": "\#(globalId(index))"}}"#
                )
            case _ where index % 100 == 70:
                lines.append(
                    #"{"type": "Feature", "geometry": null, "properties": {"_edit": "update", "GlobalID": "\#(globalId(index - 60))", "visitors": \#(index)}}"#
                )
            case _ where index % 500 == 45:
                // The GlobalID of an earlier add again: refused (when that add was valid).
                if given.contains(index - 35) { problems.append(index) }
                lines.append(
                    #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [-121.0, 37.0]}, "properties": {"name": "Again", "GlobalID": "\#(globalId(index - 35))"}}"#
                )
            default:
                lines.append(
                    #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [\#(-120 + Double(index % 1000) * 0.001), 36.5]}, "properties": {"name": "Park \#(index)", "state": "CA", "visitors": \#(index)}}"#
                )
            }
            if index % 300 == 0 { lines.append("") }
        }
        return (Array((lines.joined(separator: "\n") + "\n").utf8), problems)
    }

    /// What identifies a checked record, for comparing two ways of checking: its position and outcome.
    static func identity(_ checked: ApplyPlanner.Checked) -> String {
        switch checked {
        case .unreadable(let problem): "unreadable \(problem.position) \(problem.reason)"
        case .refused(let problem, _): "refused \(problem.position) \(problem.reason)"
        case .ready(_, let planned, _, _, _), .point(let planned): "ready \(planned.position) \(planned.kind) \(planned.globalId ?? "-")"
        }
    }

    /// Everything a plan wrote: each batch with its edits, and each problem. Payloads are kept parsed: the order of
    /// attributes in their text follows a dictionary's, which differs from one dictionary to the next.
    struct Written: Equatable {
        var batches: [JournalBatch] = []
        var payloads: [JSONValue] = []
        var problems: [InputProblem] = []
    }

    static func plan(_ bytes: [UInt8], threads: Int, layer: LayerInfo, journal: ApplyJournal) throws -> (ApplyPlanner.Summary, Written) {
        var planner = ApplyPlanner(layers: [0: layer], defaultLayer: 0, batchSize: 40)
        planner.checkingThreads = threads
        var options = InputOptions(kindField: "_edit")
        options.chunkSize = 4096
        var source = GeoJSONSeqReader(bytes: bytes, options: options)
        let summary = try planner.plan(&source, into: journal, recordProblems: true)
        try journal.finishPlan()
        var written = Written()
        for id in 0..<summary.batches {
            var batch = try journal.batch(id)
            for index in batch.edits.indices {
                written.payloads.append(try JSONReader.parse(batch.edits[index].planned.payload))
                batch.edits[index].planned.payload = ""
            }
            written.batches.append(batch)
        }
        try journal.forEachProblem { written.problems.append($0) }
        return (summary, written)
    }

    @Test("the plan is the same whether records are checked on one thread or on several", .timeLimit(.minutes(2)))
    func sameWhateverTheThreads() async throws {
        try await Support.server { endpoint in
            try await withCurlTransport { transport in
                let service = FeatureService(url: endpoint.serviceURL("parks"), transport: transport)
                let (bytes, expectedProblems) = Self.input(3_000)
                var plans: [(ApplyPlanner.Summary, Written)] = []
                for threads in [1, 2, 5] {
                    let directory = try TemporaryDirectory()
                    let (journal, layer) = try await Support.emptyJournal(service: service, directory: directory, batchSize: 40)
                    plans.append(try Self.plan(bytes, threads: threads, layer: layer, journal: journal))
                }
                let (summary, written) = plans[0]
                // The input's mix shows in the plan: unreadable lines, wrong types and the repeated GlobalID refused,
                // updates after their adds behind barriers.
                #expect(summary.records == 3_000)
                #expect(summary.problemCount == 71 && written.problems.count == 71, "\(summary.problems.prefix(3))")
                #expect(summary.edits[.update] == 30 && summary.editCount == 2_929)
                #expect(written.batches.contains { $0.barrier })
                #expect(written.batches.reduce(0) { $0 + $1.edits.count } == summary.editCount)
                // In input order: the problems are the records made to be, and edits go to batches in order.
                #expect(written.problems.map(\.position.index) == expectedProblems)
                let positions = written.batches.flatMap { $0.edits.map(\.planned.position.index) }
                #expect(positions == positions.sorted() && Set(positions).count == positions.count)
                for (other, otherWritten) in plans.dropFirst() {
                    #expect(other == summary)
                    #expect(otherWritten.problems == written.problems)
                    #expect(otherWritten.payloads == written.payloads)
                    #expect(otherWritten.batches == written.batches)
                }
            }
        }
    }

    @Test("checking a chunk on several threads gives each record's own result, in order", .timeLimit(.minutes(2)))
    func chunksInOrder() async throws {
        try await Support.server { endpoint in
            try await withCurlTransport { transport in
                let layer = try await FeatureService(url: endpoint.serviceURL("parks"), transport: transport).layerInfo(id: 0)
                let planner = ApplyPlanner(layers: [0: layer], defaultLayer: 0, batchSize: 40)
                var options = InputOptions(kindField: "_edit")
                options.chunkSize = 4096
                for count in [1, 7, 255, 256, 257] {
                    var reader = GeoJSONSeqReader(bytes: Self.input(count).bytes, options: options)
                    var records: [ReadRecord] = []
                    while let record = reader.nextRead() { records.append(record) }
                    #expect(records.count == count)
                    let one = records.map(planner.check).map(Self.identity)
                    for threads in [2, 3, 16] {
                        #expect(planner.checkAll(records, threads: threads).map(Self.identity) == one, "\(count) records on \(threads) threads")
                    }
                }
            }
        }
    }
}
