import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import LocalFeatureServer
import Testing

@testable import BatchApply

/// Which batches a crash leaves in doubt, and how a resume settles them: only batches whose requests were out, looked
/// up through the same retry policy as sending, over the real libcurl transport against the real local service.
@Suite struct BatchApplierInDoubtTests {
    typealias Outage = BatchApplierOutageTests

    /// The batches the journal holds as being sent: those a crash now would leave in doubt.
    static func inDoubt(_ journal: ApplyJournal) -> Int {
        (try? journal.openBatches().filter { $0.state == .sending }.count) ?? -1
    }

    @Test(
        "at every moment of a run the journal holds at most --concurrency batches as being sent: a crash leaves no more in doubt",
        .timeLimit(.minutes(2)))
    func atMostConcurrencyInDoubt() async throws {
        try await Outage.withPlanned(400) { planned in
            // 20 batches of 20, far fewer than a window of them.
            let applier = Outage.applier(planned.journal, layer: planned.layer, service: planned.service, batchSize: 20, concurrency: 2)
            var most = 0
            var seen = 0
            // Between progress reports too: a task reads the journal every millisecond while the run goes on.
            let journal = planned.journal
            let poller = Task {
                var most = 0
                while !Task.isCancelled {
                    most = max(most, Self.inDoubt(journal))
                    try? await Task.sleep(for: .milliseconds(1))
                }
                return most
            }
            let summary = try await applier.run { _ in
                seen += 1
                most = max(most, Self.inDoubt(planned.journal))
            }
            poller.cancel()
            let polled = await poller.value
            #expect(summary.batchesSent == 20 && seen == 20)
            #expect(most >= 1 && most <= 2, "at most the 2 batches out at once are marked as being sent; \(most) were")
            #expect(polled <= 2, "between progress reports \(polled) batches were marked as being sent at once")
            #expect(Self.inDoubt(planned.journal) == 0)
            try await Outage.expectEveryParkOnce(400, journal: planned.journal, service: planned.service, before: planned.before)
        }
    }

    @Test(
        "while the service answers every applyEdits with 503 the run waits, and the batches it stopped are not in doubt: no attempt of theirs can have applied",
        .timeLimit(.minutes(2)))
    func definiteRefusalsAreNotInDoubt() async throws {
        try await Outage.withPlanned(200) { planned in
            let queries = try await Outage.seen("query", endpoint: planned.endpoint, transport: planned.transport)
            try await Outage.setOutage("http503", endpoint: planned.endpoint, transport: planned.transport)
            var applier = Outage.applier(planned.journal, layer: planned.layer, service: planned.service, batchSize: 20, concurrency: 4)
            applier.probeInterval = .milliseconds(200)
            applier.serviceWait = .seconds(60)
            async let run = applier.run()
            try await Outage.untilSending(endpoint: planned.endpoint, transport: planned.transport)
            try await Outage.untilProbed(after: queries, endpoint: planned.endpoint, transport: planned.transport)
            // Every batch out got a 503 on each attempt (answered before anything is applied): none is in doubt now,
            // so a crash during the wait leaves nothing to look up.
            #expect(Self.inDoubt(planned.journal) == 0, "batches refused with 503 on every attempt are not in doubt")
            try await Outage.setOutage(nil, endpoint: planned.endpoint, transport: planned.transport)
            let summary = try await run
            #expect(summary.outages == 1 && summary.unavailable == nil && summary.reconciledBatches == 0, "\(summary)")
            #expect(try planned.journal.counts().applied == 200)
            try await Outage.expectEveryParkOnce(200, journal: planned.journal, service: planned.service, before: planned.before)
        }
    }

    @Test(
        "a resume looks its batches in doubt up through the retry policy: queries answered 503 or 429 half the time do not stop it",
        .timeLimit(.minutes(2)))
    func lookUpsAreRetried() async throws {
        try await Outage.withPlanned(100) { planned in
            // The process died with all five batches out, after the service had applied the first three.
            for id in 0..<5 { try planned.journal.markSending(id) }
            for id in 0..<3 {
                let adds = try planned.journal.batch(id).edits.map { try JSONDecoder().decode(Feature.self, from: Data($0.planned.payload.utf8)) }
                _ = try await planned.service.layer(id: 0).applyEdits(
                    LayerEdits(adds: adds), options: .init(rollbackOnFailure: false, useGlobalIds: true))
            }
            let json =
                #"{"seed": 3, "faults":[{"kind":"http503","rate":0.3,"operation":"query"},{"kind":"http429","rate":0.2,"retryAfter":0,"operation":"query"}]}"#
            try await Self.setFaults(json, endpoint: planned.endpoint, transport: planned.transport)
            let retry = RetryPolicy(maximumAttempts: 20, initialBackoff: .milliseconds(5), maximumBackoff: .milliseconds(20), budget: .seconds(60))
            let applier = BatchApplier(
                journal: planned.journal, service: planned.service, settings: ApplySettings(batchSize: 20, concurrency: 4), retry: retry,
                keys: [0: (planned.layer.objectIdField, planned.layer.globalIdField)])
            let summary = try await applier.run()
            #expect(summary.reconciledBatches == 5 && summary.reconciledApplied == 60, "\(summary)")
            #expect(summary.batchesSent == 2, "only the two batches the service did not hold")
            try await Self.setFaults(#"{"faults":[]}"#, endpoint: planned.endpoint, transport: planned.transport)
            #expect(try planned.journal.counts().applied == 100)
            try await Outage.expectEveryParkOnce(100, journal: planned.journal, service: planned.service, before: planned.before)
        }
    }

    /// Replaces the server's faults with `json` through its admin endpoint.
    static func setFaults(_ json: String, endpoint: LocalFeatureServerEndpoint, transport: some HTTPTransport) async throws {
        let response = try await transport.send(
            HTTPRequest(
                method: .post, url: "http://127.0.0.1:\(endpoint.port)/arcgis/admin/faults",
                headers: [HTTPHeader("Content-Type", "application/json")],
                body: Array(json.utf8)))
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
    }
}
