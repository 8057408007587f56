import BatchApply
import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import LocalFeatureServer
import Logging
import Testing

/// The applier over the real libcurl transport against the real local service on port 0, with real SQLite files
/// for the service and the journal.
@Suite struct BatchApplierIntegrationTests {
    /// `count` park adds, as a reader would make them, from record `first` on.
    static func parks(_ count: Int, first: Int = 0) -> [Result<InputEdit, InputProblem>] {
        (first..<first + count).map { index in
            let feature = Feature(
                attributes: ["name": .string("Applied park \(index)"), "state": "CA", "visitors": .int(Int64(index))],
                geometry: .point(x: -120 + Double(index % 1000) * 0.001, y: 36 + Double(index / 1000) * 0.001))
            return .success(InputEdit(kind: .add, feature: feature, position: InputPosition(index: index, line: index + 1), source: "park \(index)"))
        }
    }

    static func server<T: Sendable>(
        faults: [FaultRule] = [], seed: UInt64 = 7, _ body: @Sendable (LocalFeatureServerEndpoint) async throws -> T
    ) async throws -> T {
        var logger = Logger(label: "featureload.test-server")
        logger.logLevel = .critical
        var configuration = LocalFeatureServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.faults = .init(seed: seed, rules: faults)
        return try await withLocalFeatureServer(configuration, logger: logger, body)
    }

    /// A journal in a fresh directory, planned from `records` for layer 0 of `service`.
    static func plannedJournal(
        _ records: [Result<InputEdit, InputProblem>], service: FeatureService, directory: TemporaryDirectory, batchSize: Int
    ) async throws -> (ApplyJournal, LayerInfo) {
        let (journal, layer) = try await emptyJournal(service: service, directory: directory, batchSize: batchSize, streamed: false)
        var source = ArrayEditReader(records)
        let summary = try ApplyPlanner(layers: [0: layer], defaultLayer: 0, batchSize: batchSize).plan(&source, into: journal)
        #expect(summary.problemCount == 0, "\(summary.problems)")
        try journal.finishPlan()
        return (journal, layer)
    }

    /// A journal with a header and no plan yet, for layer 0 of `service`: with `streamed`, of newline-delimited GeoJSON
    /// sent while it is planned (`--skip-invalid`); else of a GeoJSON file planned whole first.
    static func emptyJournal(
        service: FeatureService, directory: TemporaryDirectory, batchSize: Int, streamed: Bool = true
    ) async throws -> (ApplyJournal, LayerInfo) {
        let layer = try await service.layerInfo(id: 0)
        let header = JournalHeader(
            input: streamed ? "parks.geojsonl" : "parks.geojson", inputSize: 0, target: service.url, layer: 0, objectIdField: layer.objectIdField,
            globalIdField: layer.globalIdField ?? "GlobalID", settings: ApplySettings(batchSize: batchSize, concurrency: 4),
            reading: JournalHeader.Reading(format: streamed ? .geojsonSeq : .geojson, options: InputOptions(), skipInvalid: streamed))
        return (try ApplyJournal.create(at: directory.path + "/apply.journal", header: header), layer)
    }

    /// How many rows of layer 0 hold each GlobalID the journal gave an add.
    static func occurrences(journal: ApplyJournal, layer: FeatureLayerClient) async throws -> [String: Int] {
        var ids: [String] = []
        try journal.forEachEdit(in: EditStatus.allCases) { edit in if let id = edit.planned.globalId { ids.append(id) } }
        var counts: [String: Int] = [:]
        var start = 0
        while start < ids.count {
            let chunk = Array(ids[start..<min(start + 500, ids.count)])
            start += chunk.count
            let whereClause = "GlobalID IN (" + chunk.map { "'\($0)'" }.joined(separator: ",") + ")"
            for feature in try await layer.queryAll(FeatureQuery(whereClause: whereClause, outFields: ["GlobalID"], returnGeometry: false)) {
                if let id = feature[attribute: "GlobalID"]?.stringValue.flatMap(GlobalID.normalized) { counts[id, default: 0] += 1 }
            }
        }
        return counts
    }

    static let fastRetry = RetryPolicy(
        maximumAttempts: 10, initialBackoff: .milliseconds(5), maximumBackoff: .milliseconds(100), budget: .seconds(60))

    @Test(
        "5,000 adds under 10 % 503s, 5 % 429s, dropped connections before and after commit and 1 % per-edit failures: each applied edit is there once, each rejected one is not",
        .timeLimit(.minutes(3)))
    func faults() async throws {
        let scope = FaultScope(operation: "applyEdits")
        let rules = [
            FaultRule(kind: .http503, rate: 0.1, scope: scope), FaultRule(kind: .http429, rate: 0.05, scope: scope, retryAfterSeconds: 0),
            FaultRule(kind: .dropBeforeHandler, rate: 0.02, scope: scope), FaultRule(kind: .dropAfterCommit, rate: 0.02, scope: scope),
            FaultRule(kind: .editFailure, rate: 0.01, scope: scope),
        ]
        try await Self.server(faults: rules) { endpoint in
            try await withCurlTransport { transport in
                let directory = try TemporaryDirectory()
                let service = FeatureService(url: endpoint.serviceURL("parks"), transport: transport)
                let before = try await service.layer(id: 0).count()
                let (journal, layer) = try await Self.plannedJournal(Self.parks(5_000), service: service, directory: directory, batchSize: 50)
                let applier = BatchApplier(
                    journal: journal, service: service, settings: ApplySettings(batchSize: 50, concurrency: 4), retry: Self.fastRetry,
                    keys: [0: (layer.objectIdField, layer.globalIdField)])
                let summary = try await applier.run()
                let counts = try journal.counts()
                #expect(counts.applied + counts.rejected == 5_000, "every edit settled: \(counts)")
                #expect(counts.open == 0)
                #expect(counts.rejected > 0, "the 1 % per-edit failures are rejected")
                #expect(summary.retries > 0)

                var rejected: Set<String> = []
                try journal.forEachEdit(in: [.rejected]) { edit in
                    #expect(edit.code == 1017, "the injected insert failure: \(edit)")
                    rejected.insert(edit.planned.globalId ?? "")
                }
                let occurrences = try await Self.occurrences(journal: journal, layer: service.layer(id: 0))
                #expect(occurrences.count == counts.applied, "every applied add is there")
                #expect(occurrences.values.allSatisfy { $0 == 1 }, "none twice")
                #expect(rejected.allSatisfy { occurrences[$0] == nil }, "no rejected add is there")
                #expect(try await service.layer(id: 0).count() == before + counts.applied, "nothing else was added")
                var objectIds = Set<Int64>()
                try journal.forEachEdit(in: [.applied]) { edit in if let id = edit.resultObjectId { objectIds.insert(id) } }
                #expect(objectIds.count == counts.applied, "each applied add's objectId is recorded")
            }
        }
    }

    @Test("a batch left in doubt (marked sending, its outcome never written) is looked up by GlobalID and not sent again", .timeLimit(.minutes(1)))
    func inDoubtBatch() async throws {
        try await Self.server { endpoint in
            try await withCurlTransport { transport in
                let directory = try TemporaryDirectory()
                let service = FeatureService(url: endpoint.serviceURL("parks"), transport: transport)
                let before = try await service.layer(id: 0).count()
                let (journal, layer) = try await Self.plannedJournal(Self.parks(30), service: service, directory: directory, batchSize: 10)
                // The process died after sending batch 0 and before recording it: the service holds its adds.
                try journal.markSending(0)
                let batch = try journal.batch(0)
                let adds = try batch.edits.map { try JSONDecoder().decode(Feature.self, from: Data($0.planned.payload.utf8)) }
                _ = try await service.layer(id: 0).applyEdits(LayerEdits(adds: adds), options: .init(rollbackOnFailure: false, useGlobalIds: true))

                let applier = BatchApplier(
                    journal: journal, service: service, settings: ApplySettings(batchSize: 10, concurrency: 2), retry: Self.fastRetry,
                    keys: [0: (layer.objectIdField, layer.globalIdField)])
                let summary = try await applier.run()
                #expect(summary.reconciledBatches == 1 && summary.reconciledApplied == 10)
                #expect(summary.batchesSent == 2, "only the two batches never sent")
                #expect(summary.alreadyPresent == 0)
                #expect(try journal.counts().applied == 30)
                #expect(try await service.layer(id: 0).count() == before + 30)
            }
        }
    }

    @Test("applying the same input again with a new journal adds nothing: its derived GlobalIDs are already there", .timeLimit(.minutes(1)))
    func sameInputTwice() async throws {
        try await Self.server { endpoint in
            try await withCurlTransport { transport in
                let service = FeatureService(url: endpoint.serviceURL("parks"), transport: transport)
                let before = try await service.layer(id: 0).count()
                for round in 0..<2 {
                    let directory = try TemporaryDirectory()
                    let (journal, layer) = try await Self.plannedJournal(Self.parks(25), service: service, directory: directory, batchSize: 10)
                    let applier = BatchApplier(
                        journal: journal, service: service, settings: ApplySettings(batchSize: 10, concurrency: 2), retry: Self.fastRetry,
                        keys: [0: (layer.objectIdField, layer.globalIdField)])
                    let summary = try await applier.run()
                    #expect(try journal.counts().applied == 25)
                    #expect(summary.alreadyPresent == (round == 0 ? 0 : 25))
                }
                #expect(try await service.layer(id: 0).count() == before + 25)
            }
        }
    }

    @Test(
        "two adds of one file with the same GlobalID: the second is an input problem naming the first, not an add reported applied and never made",
        .timeLimit(.minutes(1)))
    func repeatedGlobalId() async throws {
        try await Self.server { endpoint in
            try await withCurlTransport { transport in
                let service = FeatureService(url: endpoint.serviceURL("parks"), transport: transport)
                let layer = try await service.layerInfo(id: 0)
                var records = Self.parks(3)
                for index in [0, 2] {
                    guard case .success(var edit) = records[index] else { continue }
                    edit.feature.attributes["GlobalID"] = "{11111111-2222-4333-8444-555555555555}"
                    records[index] = .success(edit)
                }
                var source = ArrayEditReader(records)
                let summary = try ApplyPlanner(layers: [0: layer], defaultLayer: 0, batchSize: 10).plan(&source, into: nil)
                #expect(summary.editCount == 2)
                #expect(summary.problems.map(\.position.index) == [2])
                #expect(summary.problems.first?.reason.contains("record 1") == true, "\(summary.problems)")
            }
        }
    }

    @Test(
        "a run cancelled part-way leaves in doubt only the batches it had sent; those marked but not started go back to planned, and the resume applies every park once",
        .timeLimit(.minutes(2)))
    func cancelledRun() async throws {
        try await Self.server { endpoint in
            try await withCurlTransport { transport in
                let directory = try TemporaryDirectory()
                let service = FeatureService(url: endpoint.serviceURL("parks"), transport: transport)
                let before = try await service.layer(id: 0).count()
                let (journal, layer) = try await Self.plannedJournal(Self.parks(2_000), service: service, directory: directory, batchSize: 10)
                let keys = [0: (layer.objectIdField, layer.globalIdField)]
                // 200 batches, all marked with the first window (up to 256); paced at 1,000 edits/s, so the run takes about
                // 2 s unless stopped.
                let paced = BatchApplier(
                    journal: journal, service: service, settings: ApplySettings(batchSize: 10, concurrency: 2, rate: 1_000), retry: Self.fastRetry,
                    keys: keys)
                let run = Task { try await paced.run() }
                try await Task.sleep(for: .milliseconds(400))
                run.cancel()
                let stopped = try await run.value
                #expect(stopped.interrupted)
                let inDoubt = try journal.openBatches().filter { $0.state == .sending }.count
                #expect(inDoubt <= 2, "at most the batches in flight are in doubt, not the window marked with them: \(inDoubt)")
                #expect(try journal.openEditCount() > 0, "stopped before the end")

                let resumed = try await BatchApplier(
                    journal: journal, service: service, settings: ApplySettings(batchSize: 10, concurrency: 4), retry: Self.fastRetry, keys: keys
                ).run()
                #expect(!resumed.interrupted && resumed.reconciledBatches == inDoubt)
                #expect(try journal.openEditCount() == 0)
                #expect(try await service.layer(id: 0).count() - before == 2_000)
                let counts = try await Self.occurrences(journal: journal, layer: service.layer(id: 0))
                #expect(counts.count == 2_000 && counts.values.allSatisfy { $0 == 1 }, "every park once")
            }
        }
    }
}
