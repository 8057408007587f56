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
            attributes: [
                "GlobalID": .string(globalId(index)), "name": .string("Ordered park \(index)"), "state": "CA", "visitors": .int(Int64(index)),
            ],
            geometry: .point(x: -120 + Double(index) * 0.001, y: 36))
        return .success(InputEdit(kind: .add, feature: feature, position: InputPosition(index: position), source: "add \(index)"))
    }

    static func update(_ index: Int, at position: Int, visitors: Int64) -> Result<InputEdit, InputProblem> {
        let feature = Feature(attributes: ["GlobalID": .string(globalId(index)), "visitors": .int(visitors)])
        return .success(InputEdit(kind: .update, feature: feature, position: InputPosition(index: position), source: "update \(index)"))
    }

    /// Ten adds, then updates by GlobalID of the ten added just before, `blocks` times: every other batch of ten
    /// depends on the one before. An update gives its park 1,000,000 more visitors than its index.
    static func addsThenUpdates(blocks: Int) -> [Result<InputEdit, InputProblem>] {
        var records: [Result<InputEdit, InputProblem>] = []
        for block in 0..<blocks {
            for index in block * 10..<(block + 1) * 10 { records.append(add(index, at: records.count)) }
            for index in block * 10..<(block + 1) * 10 { records.append(update(index, at: records.count, visitors: 1_000_000 + Int64(index))) }
        }
        return records
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
                let (journal, layer) = try await Support.emptyJournal(service: service, directory: directory, batchSize: 10)
                var records: [Result<InputEdit, InputProblem>] = []
                for index in 0..<30 { records.append(Self.add(index, at: records.count)) }  // batches 0, 1, 2
                for index in 0..<10 { records.append(Self.update(index, at: records.count, visitors: 7)) }  // batch 3: adds of batch 0
                for objectId in Int64(1)...5 { records.append(Self.edit(.update, objectId: objectId, at: records.count)) }  // batch 4
                for objectId in Int64(1)...5 { records.append(Self.edit(.delete, objectId: objectId, at: records.count)) }  // batch 4 too: in order
                for objectId in Int64(1)...3 { records.append(Self.edit(.update, objectId: objectId, at: records.count)) }  // batch 5: after batch 4
                records.append(Self.add(100, at: records.count))  // batch 6
                records.append(Self.update(100, at: records.count, visitors: 9))  // batch 6: its own add, in the same request
                records.append(Self.edit(.delete, objectId: 7, at: records.count))  // batch 5
                records.append(Self.edit(.update, objectId: 7, at: records.count))  // batch 7: batch 5 would apply it before the delete
                records.append(Self.add(5, at: records.count))  // a GlobalID added again, after an update of it: a problem
                var source = ArrayEditReader(records)
                let plan = try ApplyPlanner(layers: [0: layer], defaultLayer: 0, batchSize: 10).plan(&source, into: journal)
                #expect(plan.batches == 8)
                #expect(
                    plan.problems.map(\.position.index) == [records.count - 1] && plan.problems.first?.reason.contains("record 6 too") == true,
                    "\(plan.problems)")
                let batches = try journal.startSending(Array(0..<plan.batches))
                #expect(batches.filter(\.barrier).map(\.id) == [3, 5, 7])
                #expect(batches[5].edits.map(\.planned.position.index) == [50, 51, 52, 55], "the delete joins the updates before it")
                #expect(batches[7].edits.map(\.planned.position.index) == [56])
            }
        }
    }

    static func delete(_ index: Int, at position: Int) -> Result<InputEdit, InputProblem> {
        let feature = Feature(attributes: ["GlobalID": .string(globalId(index))])
        return .success(InputEdit(kind: .delete, feature: feature, position: InputPosition(index: position), source: "delete \(index)"))
    }

    @Test(
        "verify expects an add that the input deletes later to be gone, and an add after a delete of its GlobalID to be there",
        .timeLimit(.minutes(2)))
    func verifyAddThenDelete() async throws {
        try await Support.server { endpoint in
            try await withCurlTransport { transport in
                let directory = try TemporaryDirectory()
                let service = FeatureService(url: endpoint.serviceURL("parks"), transport: transport)
                let (journal, layer) = try await Support.emptyJournal(service: service, directory: directory, batchSize: 2)
                // Park 900 is added, then deleted; park 901 stays; park 902 is deleted before it is ever added, then added.
                var source = ArrayEditReader([
                    Self.add(900, at: 0), Self.add(901, at: 1), Self.delete(900, at: 2), Self.delete(902, at: 3), Self.add(902, at: 4),
                ])
                let plan = try ApplyPlanner(layers: [0: layer], defaultLayer: 0, batchSize: 2).plan(&source, into: journal)
                try journal.finishPlan()
                #expect(plan.problemCount == 0)
                let applier = BatchApplier(
                    journal: journal, service: service, settings: ApplySettings(batchSize: 2, concurrency: 4), retry: Support.fastRetry,
                    keys: [0: (layer.objectIdField, layer.globalIdField)])
                let summary = try await applier.run()
                #expect(
                    summary.alreadyGone == 1 && summary.alreadyPresent == 0, "the delete of 902 found nothing, and the summary counts it: \(summary)")
                #expect(try journal.counts().applied == 5)
                var reasons: [Int: String] = [:]
                try journal.forEachEdit(in: [.applied]) { reasons[$0.planned.position.index] = $0.reason }
                #expect(reasons[3]?.hasPrefix("already gone") == true, "a delete that found nothing says so: \(reasons)")
                let finding = try await JournalVerifier(journal: journal, service: service).verify()
                #expect(finding.passed, "\(finding.summary)")
                // The add of 900 is checked through its delete; the delete of 902 through its later add.
                #expect(finding.appliedAdds == 2 && finding.foundOnce == 2 && finding.superseded == 2, "\(finding)")
                #expect(finding.appliedDeletes == 1 && finding.deletesPresent == 0, "\(finding)")
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
                let (journal, layer) = try await Support.emptyJournal(service: service, directory: directory, batchSize: 10)
                var source = ArrayEditReader(Self.addsThenUpdates(blocks: 20))
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

    @Test(
        "an edit whose earlier edit of the same feature failed is not sent, with the reason; the resume sends both, in order",
        .timeLimit(.minutes(2)))
    func laterEditWaitsForFailedEarlier() async throws {
        let scope = FaultScope(operation: "applyEdits")
        try await Support.server(faults: [FaultRule(kind: .http503, rate: 0.3, scope: scope)], seed: 5) { endpoint in
            try await withCurlTransport { transport in
                let directory = try TemporaryDirectory()
                let service = FeatureService(url: endpoint.serviceURL("parks"), transport: transport)
                let (journal, layer) = try await Support.emptyJournal(service: service, directory: directory, batchSize: 10)
                var source = ArrayEditReader(Self.addsThenUpdates(blocks: 10))
                _ = try ApplyPlanner(layers: [0: layer], defaultLayer: 0, batchSize: 10).plan(&source, into: journal)
                try journal.finishPlan()
                let keys: [Int: (objectIdField: String, globalIdField: String?)] = [0: (layer.objectIdField, layer.globalIdField)]
                // One attempt per request: about a third of the batches fail (not waiting for the service to answer
                // again, which would send them again in this run).
                let once = RetryPolicy(maximumAttempts: 1, initialBackoff: .milliseconds(1), maximumBackoff: .milliseconds(1), budget: .seconds(5))
                var failing = BatchApplier(
                    journal: journal, service: service, settings: ApplySettings(batchSize: 10, concurrency: 8), retry: once, keys: keys)
                failing.serviceWait = .zero
                _ = try await failing.run()
                var failedAdds: Set<Int> = []
                var withheld: Set<Int> = []
                var rejected = 0
                try journal.forEachEdit(in: EditStatus.allCases) { edit in
                    let index = edit.planned.position.index % 20
                    if edit.status == .rejected { rejected += 1 }
                    if edit.planned.kind == .add, edit.status == .failed { failedAdds.insert(edit.planned.position.index / 20 * 10 + index) }
                    if edit.planned.kind == .update, edit.reason?.hasPrefix("not sent: an earlier edit") == true {
                        withheld.insert(edit.planned.position.index / 20 * 10 + index - 10)
                    }
                }
                #expect(!failedAdds.isEmpty, "the faults failed some adds")
                #expect(rejected == 0, "no update reached the service before its add")
                #expect(failedAdds.isSubset(of: withheld), "the update of every park whose add failed waited: \(failedAdds.subtracting(withheld))")

                let resumed = try await BatchApplier(
                    journal: journal, service: service, settings: ApplySettings(batchSize: 10, concurrency: 8), retry: Support.fastRetry, keys: keys
                ).run()
                #expect(resumed.settled[.applied] ?? 0 > 0)
                let counts = try journal.counts()
                #expect(counts.applied == 200 && counts.open == 0 && counts.rejected == 0, "\(counts)")
                let features = try await service.layer(id: 0).queryAll(
                    FeatureQuery(whereClause: "name LIKE 'Ordered park %'", outFields: ["visitors"], returnGeometry: false))
                #expect(features.count == 100)
                #expect(features.filter { ($0[attribute: "visitors"]?.intValue ?? 0) < 1_000_000 }.count == 0, "every park carries its update")
            }
        }
    }
}
