import BatchApply
import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import LocalFeatureServer
import Synchronization
import Testing

/// A plan made beside sending (`apply --skip-invalid`): batches handed over as they complete, sent while the rest of
/// the input is read, and a plan interrupted part-way made again over its journal. Real libcurl transport, real
/// local service on port 0, real SQLite journal.
@Suite struct StreamedPlanTests {
    typealias Support = BatchApplierIntegrationTests

    /// How often each batch was handed over.
    final class Tally: Sendable {
        let counts = Mutex<[Int: Int]>([:])
    }

    /// Plans `records` into `journal` on a task of its own, handing batches to the returned stream as they complete;
    /// `stopAfter` records, it stops as a cancelled run does.
    static func streamPlan(
        _ records: [Result<InputEdit, InputProblem>], layer: LayerInfo, journal: ApplyJournal, batchSize: Int, stopAfter: Int = .max,
        check: @escaping @Sendable (ApplyPlanner.ReadyBatches) -> Void = { _ in }
    ) -> (AsyncStream<ApplyPlanner.ReadyBatches>, Task<ApplyPlanner.Summary, any Error>) {
        let (stream, continuation) = AsyncStream.makeStream(of: ApplyPlanner.ReadyBatches.self)
        let task = Task.detached {
            defer { continuation.finish() }
            var source = ArrayEditReader(records)
            var asked = 0
            return try ApplyPlanner(layers: [0: layer], defaultLayer: 0, batchSize: batchSize).plan(
                &source, into: journal, recordProblems: true,
                stop: {
                    asked += 1
                    return asked > stopAfter
                },
                ready: { ready in
                    check(ready)
                    continuation.yield(ready)
                })
        }
        return (stream, task)
    }

    @Test(
        "batches are handed over once each, complete and committed, and sent while the input is still read: every valid park once, the invalid ones recorded",
        .timeLimit(.minutes(2)))
    func streamed() async throws {
        try await Support.server { endpoint in
            try await withCurlTransport { transport in
                let directory = try TemporaryDirectory()
                let service = FeatureService(url: endpoint.serviceURL("parks"), transport: transport)
                let before = try await service.layer(id: 0).count()
                var records = Support.parks(4_321)
                for index in [5, 2_500, 4_000] {
                    records[index] = .failure(InputProblem(position: InputPosition(index: index), reason: "unreadable", source: "bad \(index)"))
                }
                let (journal, layer) = try await Support.emptyJournal(service: service, directory: directory, batchSize: 100)
                let handed = Tally()
                let (ready, planning) = Self.streamPlan(records, layer: layer, journal: journal, batchSize: 100) { ready in
                    var edits = 0
                    for id in ready.ids {
                        // Committed before it is handed over, and complete: no later page adds to it.
                        let count = (try? journal.batch(id).edits.count) ?? -1
                        edits += count
                        handed.counts.withLock { $0[id, default: 0] += 1 }
                    }
                    #expect(edits == ready.edits, "the edits said to be ready are those the journal holds for these batches")
                }
                let applier = BatchApplier(
                    journal: journal, service: service, settings: ApplySettings(batchSize: 100, concurrency: 4), retry: Support.fastRetry,
                    keys: [0: (layer.objectIdField, layer.globalIdField)])
                let summary = try await applier.run(plan: ready)
                let plan = try await planning.value
                try journal.finishPlan()

                #expect(plan.problemCount == 3 && plan.editCount == 4_318)
                let counts = handed.counts.withLock { $0 }
                #expect(counts.count == plan.batches && counts.values.allSatisfy { $0 == 1 }, "each batch handed over once")
                #expect(summary.batchesSent == plan.batches && summary.settled[.applied] == 4_318)
                #expect(try journal.counts().applied == 4_318 && journal.problemCount() == 3)
                let occurrences = try await Support.occurrences(journal: journal, layer: service.layer(id: 0))
                #expect(occurrences.count == 4_318 && occurrences.values.allSatisfy { $0 == 1 })
                #expect(try await service.layer(id: 0).count() == before + 4_318)
            }
        }
    }

    @Test(
        "a streamed plan stopped part-way, after some batches were sent, is made again over its journal: outcomes kept, nothing sent twice, the rest sent",
        .timeLimit(.minutes(2)),
        // With 300, the batch the first plan stopped in (records 3,900 to 4,199) had rows written and was never sent:
        // made again, it is read whole from the journal, not sent as only its new rows.
        arguments: [100, 300])
    func interruptedAndMadeAgain(batchSize: Int) async throws {
        try await Support.server { endpoint in
            try await withCurlTransport { transport in
                let directory = try TemporaryDirectory()
                let service = FeatureService(url: endpoint.serviceURL("parks"), transport: transport)
                let before = try await service.layer(id: 0).count()
                let records = Support.parks(5_000)
                var (journal, layer) = try await Support.emptyJournal(service: service, directory: directory, batchSize: batchSize)
                // Batches complete (and sent) when the first plan stops; the plan's batches in all.
                let (firstBatches, batches) = (4_000 / batchSize, (5_000 + batchSize - 1) / batchSize)
                var applier = BatchApplier(
                    journal: journal, service: service, settings: ApplySettings(batchSize: batchSize, concurrency: 4), retry: Support.fastRetry,
                    keys: [0: (layer.objectIdField, layer.globalIdField)])

                // Stopped after 4,100 records: the journal holds the two whole pages written (4,000 edits).
                let (firstReady, firstPlan) = Self.streamPlan(records, layer: layer, journal: journal, batchSize: batchSize, stopAfter: 4_100)
                let first = try await applier.run(plan: firstReady)
                await #expect(throws: CancellationError.self) { try await firstPlan.value }
                #expect(try !journal.isPlanned())
                #expect(
                    try journal.counts().planned == 4_000 && first.settled[.applied] == firstBatches * batchSize && first.batchesSent == firstBatches)
                var earlier: [Int: Int64] = [:]
                try journal.forEachEdit(in: [.applied]) { earlier[$0.planned.position.index] = $0.resultObjectId }

                // What follows is what `--resume` does in a new process: the journal opened again.
                journal = try ApplyJournal.open(at: journal.path)
                applier = BatchApplier(
                    journal: journal, service: service, settings: ApplySettings(batchSize: batchSize, concurrency: 4), retry: Support.fastRetry,
                    keys: [0: (layer.objectIdField, layer.globalIdField)])

                // Made again from a changed input (one record's text, so its derived GlobalID): refused, nothing sent.
                var changed = records
                if case .success(var edit) = changed[1_234] {
                    edit.source += " "
                    changed[1_234] = .success(edit)
                }
                let (changedReady, changedPlan) = Self.streamPlan(changed, layer: layer, journal: journal, batchSize: batchSize)
                let refused = try await applier.run(plan: changedReady)
                await #expect(throws: ApplyError.self) { try await changedPlan.value }
                #expect(refused.batchesSent == 0 && refused.requests == 0)
                #expect(try journal.counts().planned == 4_000)

                // Made again from the start: the batches sent come again, settled, and are not sent again.
                let (secondReady, secondPlan) = Self.streamPlan(records, layer: layer, journal: journal, batchSize: batchSize)
                let second = try await applier.run(plan: secondReady)
                let plan = try await secondPlan.value
                try journal.finishPlan()
                #expect(plan.batches == batches && plan.editCount == 5_000)
                #expect(
                    second.batchesSent == batches - firstBatches && second.settled[.applied] == 5_000 - firstBatches * batchSize
                        && second.alreadyPresent == 0, "\(second)")
                var kept = 0
                try journal.forEachEdit(in: [.applied]) { edit in if earlier[edit.planned.position.index] == edit.resultObjectId { kept += 1 } }
                #expect(kept == firstBatches * batchSize, "the first run's outcomes are kept as they were")
                #expect(try journal.counts().applied == 5_000)
                let occurrences = try await Support.occurrences(journal: journal, layer: service.layer(id: 0))
                #expect(occurrences.count == 5_000 && occurrences.values.allSatisfy { $0 == 1 })
                #expect(try await service.layer(id: 0).count() == before + 5_000)
            }
        }
    }
}
