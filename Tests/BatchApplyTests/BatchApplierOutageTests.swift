import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import LocalFeatureServer
import Testing

@testable import BatchApply

/// A service that cannot be reached for a while: the applier waits for it instead of failing batch after batch, and
/// stops, resumable, when it waits too long.
@Suite struct BatchApplierOutageTests {
    /// Sets the server's faults through its admin endpoint while a run goes on: every request fails as `kind` says, or
    /// none with no kind.
    static func setOutage(_ kind: String?, endpoint: LocalFeatureServerEndpoint, transport: some HTTPTransport) async throws {
        // A 429 asks for no wait here (Retry-After 0), so that a batch gives up at once, as with the other kinds.
        let json = kind.map { #"{"faults":[{"kind":"\#($0)","rate":1\#($0 == "http429" ? #","retryAfter":0"# : "")}]}"# } ?? #"{"faults":[]}"#
        let response = try await transport.send(
            HTTPRequest(
                method: .post, url: "http://127.0.0.1:\(endpoint.port)/arcgis/admin/faults",
                headers: [HTTPHeader("Content-Type", "application/json")],
                body: Array(json.utf8)))
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
    }

    /// The requests for `operation` (lower-cased, as the server names it: `applyedits`, `query`) the server has seen
    /// so far.
    static func seen(_ operation: String, endpoint: LocalFeatureServerEndpoint, transport: some HTTPTransport) async throws -> Int {
        let response = try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(endpoint.port)/arcgis/admin/stats"))
        guard case .object(let stats) = try JSONReader.parse(bytes: response.body), case .object(let operations)? = stats["requestsByOperation"]
        else {
            Issue.record("no statistics: \(String(decoding: response.body, as: UTF8.self))")
            return 0
        }
        return Int(operations[operation]?.intValue ?? 0)
    }

    /// The applyEdits requests the server has seen so far.
    static func applyEditsSeen(endpoint: LocalFeatureServerEndpoint, transport: some HTTPTransport) async throws -> Int {
        try await seen("applyedits", endpoint: endpoint, transport: transport)
    }

    /// Waits until the server has seen an applyEdits request (the run is sending), at most 30 s.
    static func untilSending(endpoint: LocalFeatureServerEndpoint, transport: some HTTPTransport) async throws {
        for _ in 0..<3_000 {
            if try await applyEditsSeen(endpoint: endpoint, transport: transport) > 0 { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("the run sent nothing within 30 s")
    }

    /// Puts the service out of reach as `kind` says, then waits until the run probes it (``untilProbed(after:endpoint:transport:)``).
    @discardableResult
    static func outageUntilProbed(_ kind: String, endpoint: LocalFeatureServerEndpoint, transport: some HTTPTransport) async throws -> Int {
        // The run makes no query of its own before an outage, so any query after this count is a probe.
        let queries = try await seen("query", endpoint: endpoint, transport: transport)
        try await setOutage(kind, endpoint: endpoint, transport: transport)
        return try await untilProbed(after: queries, endpoint: endpoint, transport: transport)
    }

    /// Waits until the server has seen more than `queries` queries: the run's first probe (a count) of a service out
    /// of reach. The applier probes only once every batch in flight has come back and what came back is written, so
    /// from then on it sends no applyEdits until the service answers. Waiting for that event rather than for a quiet
    /// spell holds on a starved machine, where one batch's last retry can come long after the others'. At most 60 s;
    /// returns the applyEdits requests seen when the probe arrived.
    @discardableResult
    static func untilProbed(after queries: Int, endpoint: LocalFeatureServerEndpoint, transport: some HTTPTransport) async throws -> Int {
        for _ in 0..<6_000 {
            if try await seen("query", endpoint: endpoint, transport: transport) > queries {
                return try await applyEditsSeen(endpoint: endpoint, transport: transport)
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("the run did not probe the service within 60 s of the outage")
        return try await applyEditsSeen(endpoint: endpoint, transport: transport)
    }

    /// What most tests here start from: a local service (with `faults`) reached through libcurl, its count of parks
    /// before the test, and a journal planned for `parks` new parks in batches of 20.
    struct Planned {
        let endpoint: LocalFeatureServerEndpoint
        let transport: CurlTransport
        let service: FeatureService
        let journal: ApplyJournal
        let layer: LayerInfo
        let before: Int
    }

    static func withPlanned(_ parks: Int, faults: [FaultRule] = [], _ body: @Sendable (Planned) async throws -> Void) async throws {
        try await BatchApplierIntegrationTests.server(faults: faults) { endpoint in
            try await withCurlTransport { transport in
                let directory = try TemporaryDirectory()
                let service = FeatureService(url: endpoint.serviceURL("parks"), transport: transport)
                let before = try await service.layer(id: 0).count()
                let (journal, layer) = try await BatchApplierIntegrationTests.plannedJournal(
                    BatchApplierIntegrationTests.parks(parks), service: service, directory: directory, batchSize: 20)
                try await body(Planned(endpoint: endpoint, transport: transport, service: service, journal: journal, layer: layer, before: before))
                withExtendedLifetime(directory) {}
            }
        }
    }

    /// An applier of `journal` (layer 0) with the quick retry policy.
    static func applier(
        _ journal: ApplyJournal, layer: LayerInfo, service: FeatureService, batchSize: Int, concurrency: Int = 4, rate: Double? = nil
    ) -> BatchApplier {
        BatchApplier(
            journal: journal, service: service, settings: ApplySettings(batchSize: batchSize, concurrency: concurrency, rate: rate),
            retry: quickRetry,
            keys: [0: (layer.objectIdField, layer.globalIdField)])
    }

    /// Expects each of the journal's `count` parks in layer 0 once, and nothing else added since `before` rows.
    static func expectEveryParkOnce(_ count: Int, journal: ApplyJournal, service: FeatureService, before: Int) async throws {
        let occurrences = try await BatchApplierIntegrationTests.occurrences(journal: journal, layer: service.layer(id: 0))
        #expect(occurrences.count == count && occurrences.values.allSatisfy { $0 == 1 }, "every park once")
        #expect(try await service.layer(id: 0).count() == before + count)
    }

    static let quickRetry = RetryPolicy(maximumAttempts: 3, initialBackoff: .milliseconds(5), maximumBackoff: .milliseconds(20), budget: .seconds(10))

    @Test(
        "what says the service cannot take requests now: no connection, timeouts, broken exchanges, 502/503/504, 429; not a refusal or a bad answer")
    func classification() {
        for failure: AttemptFailure in [
            .transport(.couldNotConnect, mayHaveBeenSent: false), .transport(.timedOut, mayHaveBeenSent: true),
            .transport(.emptyReply, mayHaveBeenSent: true),
            .transport(.receiveFailed, mayHaveBeenSent: true), .transport(.couldNotResolveHost, mayHaveBeenSent: false), .httpStatus(502),
            .httpStatus(503),
            .httpStatus(504), .arcgis(code: 503, httpStatus: 200), .arcgis(code: 500, httpStatus: 504), .httpStatus(429),
            .arcgis(code: 429, httpStatus: 200), .arcgis(code: 429, httpStatus: 429),
        ] {
            #expect(BatchApplier.unavailability(failure) != nil, "\(failure)")
        }
        for failure: AttemptFailure in [
            .transport(.tlsFailed, mayHaveBeenSent: false), .transport(.responseTooLarge, mayHaveBeenSent: true), .httpStatus(500),
            .httpStatus(400), .arcgis(code: 500, httpStatus: 200), .arcgis(code: 498, httpStatus: 200), .undecodable(httpStatus: 200),
            .invalidRequest,
        ] {
            #expect(BatchApplier.unavailability(failure) == nil, "\(failure)")
        }
        #expect(BatchApplier.spoken(.seconds(45)) == "45 s")
        #expect(BatchApplier.spoken(.seconds(200)) == "3 min 20 s")
        #expect(BatchApplier.spoken(.seconds(900)) == "15 min")
        #expect(BatchApplier.spoken(.seconds(7500)) == "2 h 5 min")
    }

    @Test(
        "a service out of reach for a while (answering 503, or 429 as throttled; or committing, then dropping the connection, so the check drops too): the run sends nothing meanwhile, goes on once it answers, looks up the batches in doubt by GlobalID, and applies every edit once",
        .timeLimit(.minutes(2)), arguments: ["http503", "dropAfterCommit", "http429"])
    func ridesOutAnOutage(fault: String) async throws {
        try await Self.withPlanned(1_000) { planned in
            let (endpoint, transport, service, journal, layer, before) = (
                planned.endpoint, planned.transport, planned.service, planned.journal, planned.layer, planned.before
            )
            var applier = Self.applier(journal, layer: layer, service: service, batchSize: 20, rate: 1_000)
            applier.probeInterval = .milliseconds(200)
            applier.serviceWait = .seconds(60)
            let run = Task { try await applier.run() }
            // Paced at 1,000 edits/s, the run is under way when the service goes away, for about 2 s.
            try await Self.untilSending(endpoint: endpoint, transport: transport)
            // Once the batches in flight have given up, nothing more is sent, only probes.
            let early = try await Self.outageUntilProbed(fault, endpoint: endpoint, transport: transport)
            try await Task.sleep(for: .milliseconds(1_000))
            let late = try await Self.applyEditsSeen(endpoint: endpoint, transport: transport)
            #expect(early > 0 && late == early, "no applyEdits while the service is out of reach: \(late - early) were sent after \(early)")
            try await Self.setOutage(nil, endpoint: endpoint, transport: transport)
            let summary = try await run.value
            #expect(summary.unavailable == nil && !summary.interrupted)
            #expect(summary.outages >= 1 && summary.outageTime >= .milliseconds(500), "the run waited for the service")
            if fault == "dropAfterCommit" {
                #expect(summary.reconciledBatches > 0 && summary.reconciledApplied > 0, "the batches in doubt were looked up: \(summary)")
            }
            let counts = try journal.counts()
            #expect(counts.applied == 1_000 && counts.failed == 0 && counts.unknown == 0 && counts.open == 0, "\(counts)")
            #expect(summary.settled[.applied] == 1_000, "each edit counted once in the run")
            try await Self.expectEveryParkOnce(1_000, journal: journal, service: service, before: before)
        }
    }

    @Test(
        "connections dropped for too long: the run stops with the reason, fails no edit, leaves what may have arrived in doubt, and a resume applies everything once",
        .timeLimit(.minutes(2)))
    func givesUpThenResumes() async throws {
        try await Self.withPlanned(600) { planned in
            let (endpoint, transport, service, journal, layer, before) = (
                planned.endpoint, planned.transport, planned.service, planned.journal, planned.layer, planned.before
            )
            var applier = Self.applier(journal, layer: layer, service: service, batchSize: 20, rate: 1_000)
            applier.probeInterval = .milliseconds(100)
            applier.serviceWait = .milliseconds(600)
            let run = Task { try await applier.run() }
            try await Self.untilSending(endpoint: endpoint, transport: transport)
            // The connection closes before the service reads the request: an attempt that may have reached it.
            try await Self.setOutage("dropBeforeHandler", endpoint: endpoint, transport: transport)
            let stopped = try await run.value
            try await Self.setOutage(nil, endpoint: endpoint, transport: transport)
            let reason = try #require(stopped.unavailable)
            #expect(reason.contains("could not be reached for") && reason.contains("empty reply"), "\(reason)")
            let counts = try journal.counts()
            #expect(counts.failed == 0 && counts.unknown == 0, "no edit is failed for the outage: \(counts)")
            #expect(counts.open > 0 && counts.applied < 600)
            let states = try journal.openBatches().map(\.state)
            #expect(states.contains(.sending), "the batches that may have reached the service are in doubt")

            let resumed = try await Self.applier(journal, layer: layer, service: service, batchSize: 20).run()
            #expect(resumed.unavailable == nil && resumed.reconciledBatches > 0)
            #expect(try journal.counts().applied == 600)
            try await Self.expectEveryParkOnce(600, journal: journal, service: service, before: before)
        }
    }

    @Test("with --wait-for-service 0 a batch that cannot reach the service fails after its retries, as each edit's outcome", .timeLimit(.minutes(1)))
    func noWaitFailsBatches() async throws {
        try await Self.withPlanned(40, faults: [FaultRule(kind: .http503, rate: 1, scope: FaultScope(operation: "applyEdits"))]) { planned in
            let (service, journal, layer) = (planned.service, planned.journal, planned.layer)
            var applier = Self.applier(journal, layer: layer, service: service, batchSize: 20, concurrency: 2)
            applier.serviceWait = .zero
            let summary = try await applier.run()
            #expect(summary.unavailable == nil && summary.outages == 0)
            #expect(try journal.counts().failed == 40)
        }
    }

    @Test(
        "an outage while adds and their updates go out (each update a barrier after its add): once the service answers, every park carries its update",
        .timeLimit(.minutes(2)))
    func barriersAcrossAnOutage() async throws {
        try await BatchApplierIntegrationTests.server { endpoint in
            try await withCurlTransport { transport in
                let directory = try TemporaryDirectory()
                let service = FeatureService(url: endpoint.serviceURL("parks"), transport: transport)
                let (journal, layer) = try await BatchApplierIntegrationTests.emptyJournal(service: service, directory: directory, batchSize: 10)
                var source = ArrayEditReader(OrderedEditsTests.addsThenUpdates(blocks: 20))
                _ = try ApplyPlanner(layers: [0: layer], defaultLayer: 0, batchSize: 10).plan(&source, into: journal)
                try journal.finishPlan()
                var applier = Self.applier(journal, layer: layer, service: service, batchSize: 10, concurrency: 8, rate: 200)
                applier.probeInterval = .milliseconds(200)
                let run = Task { try await applier.run() }
                try await Self.untilSending(endpoint: endpoint, transport: transport)
                try await Self.outageUntilProbed("dropAfterCommit", endpoint: endpoint, transport: transport)
                try await Self.setOutage(nil, endpoint: endpoint, transport: transport)
                let summary = try await run.value
                #expect(summary.outages >= 1 && summary.unavailable == nil)
                let counts = try journal.counts()
                #expect(counts.applied == 400 && counts.rejected == 0 && counts.failed == 0 && counts.open == 0, "\(counts)")
                let features = try await service.layer(id: 0).queryAll(
                    FeatureQuery(whereClause: "name LIKE 'Ordered park %'", outFields: ["visitors"], returnGeometry: false))
                #expect(features.count == 200)
                #expect(features.filter { ($0[attribute: "visitors"]?.intValue ?? 0) < 1_000_000 }.count == 0, "every park carries its update")
            }
        }
    }

    @Test("Ctrl-C while waiting for the service: the run stops at once, fails no edit, and a resume applies every edit once", .timeLimit(.minutes(1)))
    func cancelledWhileWaiting() async throws {
        try await Self.withPlanned(600) { planned in
            let (endpoint, transport, service, journal, layer, before) = (
                planned.endpoint, planned.transport, planned.service, planned.journal, planned.layer, planned.before
            )
            let applier = Self.applier(journal, layer: layer, service: service, batchSize: 20, rate: 1_000)
            let run = Task { try await applier.run() }
            try await Self.untilSending(endpoint: endpoint, transport: transport)
            // The run now waits for the service.
            try await Self.outageUntilProbed("dropBeforeHandler", endpoint: endpoint, transport: transport)
            let clock = ContinuousClock()
            let cancelled = clock.now
            run.cancel()
            let stopped = try await run.value
            #expect(cancelled.duration(to: clock.now) < .seconds(2), "the probe's pause ends with the cancellation")
            try await Self.setOutage(nil, endpoint: endpoint, transport: transport)
            #expect(stopped.interrupted && stopped.unavailable == nil)
            let counts = try journal.counts()
            #expect(counts.failed == 0 && counts.unknown == 0 && counts.open > 0, "\(counts)")

            let resumed = try await Self.applier(journal, layer: layer, service: service, batchSize: 20).run()
            #expect(!resumed.interrupted && resumed.unavailable == nil)
            #expect(try journal.counts().applied == 600)
            try await Self.expectEveryParkOnce(600, journal: journal, service: service, before: before)
        }
    }

    @Test(
        "reading the metadata at the start waits for a service answering 503 as sending does: it goes on once the service answers, and stops with the reason after --wait-for-service",
        .timeLimit(.minutes(1)))
    func startWaitsForService() async throws {
        try await BatchApplierIntegrationTests.server { endpoint in
            try await withCurlTransport { transport in
                let service = FeatureService(url: endpoint.serviceURL("parks"), transport: transport)
                try await Self.setOutage("http503", endpoint: endpoint, transport: transport)
                async let loaded = BatchApplier.waitingForService(.seconds(50), probeInterval: .milliseconds(50), clock: ContinuousClock()) {
                    try await service.load(retry: Self.quickRetry)
                }
                // Each try is the policy's 3 attempts: two tries have failed once the server has seen 6 requests.
                for _ in 0..<3_000 {
                    if try await Self.seen("service", endpoint: endpoint, transport: transport) >= 6 { break }
                    try await Task.sleep(for: .milliseconds(10))
                }
                try await Self.setOutage(nil, endpoint: endpoint, transport: transport)
                #expect(try await !loaded.layers.isEmpty)

                try await Self.setOutage("http503", endpoint: endpoint, transport: transport)
                do {
                    _ = try await BatchApplier.waitingForService(.milliseconds(300), probeInterval: .milliseconds(50), clock: ContinuousClock()) {
                        try await service.load(retry: Self.quickRetry)
                    }
                    Issue.record("the metadata was read from a service answering 503 to everything")
                } catch let error as ApplyError {
                    #expect("\(error)".contains("the service could not be reached for") && "\(error)".contains("503"), "\(error)")
                }
            }
        }
    }
}
