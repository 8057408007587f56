import BatchApply
import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import LocalFeatureServer
import Testing

/// Several edits of one feature in one input (an add and then updates by its GlobalID, an update and then a delete)
/// reach the service in the input's order, although batches go out several at a time.
@Suite struct OrderedEditsTests {
    typealias Support = BatchApplierIntegrationTests

    static func globalId(_ index: Int) -> String { String(format: "{00000000-0000-4000-8000-%012d}", index) }

    static func add(_ index: Int, at position: Int) -> Result<InputEdit, InputProblem> {
        let feature = Feature(
            attributes: ["GlobalID": .string(globalId(index)), "name": .string("Ordered park \(index)"), "state": "CA", "visitors": .int(Int64(index))],
            geometry: .point(x: -120 + Double(index) * 0.001, y: 36))
        return .success(InputEdit(kind: .add, feature: feature, position: InputPosition(index: position), source: "add \(index)"))
    }

    static func update(_ index: Int, at position: Int, visitors: Int64) -> Result<InputEdit, InputProblem> {
        let feature = Feature(attributes: ["GlobalID": .string(globalId(index)), "visitors": .int(visitors)])
        return .success(InputEdit(kind: .update, feature: feature, position: InputPosition(index: position), source: "update \(index)"))
    }

    static func edit(_ kind: InputEdit.Kind, objectId: Int64, at position: Int) -> Result<InputEdit, InputProblem> {
        let feature = Feature(attributes: ["OBJECTID": .int(objectId), "visitors": .int(objectId)])
        return .success(InputEdit(kind: kind, feature: feature, position: InputPosition(index: position), source: "\(kind) \(objectId)"))
    }

    @Test("a batch that edits a feature an earlier batch edits is a barrier; edits of one feature in one batch are not")
    func barriersPlanned() async throws {
        try await Support.server { endpoint in
            try await withCurlTransport { transport in
                let directory = try TemporaryDirectory()
                let service = FeatureService(url: endpoint.serviceURL("parks"), transport: transport)
                let (journal, layer) = try await StreamedPlanTests.emptyJournal(service: service, directory: directory, batchSize: 10)
                var records: [Result<InputEdit, InputProblem>] = []
                for index in 0..<30 { records.append(Self.add(index, at: records.count)) }  // batches 0, 1, 2
                for index in 0..<10 { records.append(Self.update(index, at: records.count, visitors: 7)) }  // batch 3: adds of batch 0
                for objectId in Int64(1)...5 { records.append(Self.edit(.update, objectId: objectId, at: records.count)) }  // batch 4
                for objectId in Int64(1)...5 { records.append(Self.edit(.delete, objectId: objectId, at: records.count)) }  // batch 4 too: in order
                for objectId in Int64(1)...3 { records.append(Self.edit(.update, objectId: objectId, at: records.count)) }  // batch 5: after batch 4
                records.append(Self.add(100, at: records.count))  // batch 6
                records.append(Self.update(100, at: records.count, visitors: 9))  // batch 6: its own add, in the same request
                var source = ArrayEditReader(records)
                let plan = try ApplyPlanner(layers: [0: layer], defaultLayer: 0, batchSize: 10).plan(&source, into: journal)
                #expect(plan.problemCount == 0 && plan.batches == 7, "\(plan.problems)")
                let barriers = try journal.startSending(Array(0..<plan.batches)).filter(\.barrier).map(\.id)
                #expect(barriers == [3, 5])
            }
        }
    }

    @Test(
        "adds and then updates of the same features by GlobalID, interleaved, 8 batches in flight under 20 % 503s: every update lands after its add",
        .timeLimit(.minutes(2)))
    func updatesAfterAdds() async throws {
        let scope = FaultScope(operation: "applyEdits")
        try await Support.server(faults: [FaultRule(kind: .http503, rate: 0.2, scope: scope)], seed: 11) { endpoint in
            try await withCurlTransport { transport in
                let directory = try TemporaryDirectory()
                let service = FeatureService(url: endpoint.serviceURL("parks"), transport: transport)
                let (journal, layer) = try await StreamedPlanTests.emptyJournal(service: service, directory: directory, batchSize: 10)
                // Ten adds, then updates of the ten added just before, and so on: every other batch depends on the one before.
                var records: [Result<InputEdit, InputProblem>] = []
                for block in 0..<20 {
                    for index in block * 10..<(block + 1) * 10 { records.append(Self.add(index, at: records.count)) }
                    for index in block * 10..<(block + 1) * 10 { records.append(Self.update(index, at: records.count, visitors: 1_000_000 + Int64(index))) }
                }
                var source = ArrayEditReader(records)
                let plan = try ApplyPlanner(layers: [0: layer], defaultLayer: 0, batchSize: 10).plan(&source, into: journal)
                try journal.finishPlan()
                #expect(plan.problemCount == 0 && plan.batches == 40)
                let applier = BatchApplier(
                    journal: journal, service: service, settings: ApplySettings(batchSize: 10, concurrency: 8), retry: Support.fastRetry,
                    keys: [0: (layer.objectIdField, layer.globalIdField)])
                let summary = try await applier.run()
                #expect(summary.retries > 0, "the faults delayed batches")
                let counts = try journal.counts()
                #expect(counts.applied == 400 && counts.rejected == 0 && counts.open == 0, "\(counts)")
                let features = try await service.layer(id: 0).queryAll(
                    FeatureQuery(whereClause: "name LIKE 'Ordered park %'", outFields: ["GlobalID", "visitors"], returnGeometry: false))
                #expect(features.count == 200)
                let stale = features.filter { ($0[attribute: "visitors"]?.intValue ?? 0) < 1_000_000 }
                #expect(stale.count == 0, "every park carries its update")
            }
        }
    }
}
