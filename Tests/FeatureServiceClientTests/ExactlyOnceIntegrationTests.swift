import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import LocalFeatureServer
import Logging
import Synchronization
import Testing

/// Retried, exactly-once edits and token refresh through libcurl against the real local feature service.
@Suite struct ExactlyOnceIntegrationTests {
    /// Quick retries for tests: real sleeps of at most 20 ms.
    static let policy = RetryPolicy(maximumAttempts: 12, initialBackoff: .milliseconds(1), maximumBackoff: .milliseconds(20), budget: .seconds(30))

    static func parks(_ count: Int, generator: inout SplitMix64, batch: Int) -> [Feature] {
        (0..<count).map { index in
            Feature(
                attributes: [
                    "name": .string("Exactly once \(batch)-\(index)"), "state": "CA", "GlobalID": .string(GlobalID.make(using: &generator)),
                ],
                geometry: .point(x: -119 + Double(index) * 0.001, y: 37))
        }
    }

    /// How many rows hold each of `globalIds`.
    static func occurrences(of globalIds: [String], layer: FeatureLayerClient) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        var start = 0
        while start < globalIds.count {
            let chunk = Array(globalIds[start..<min(start + 200, globalIds.count)])
            start += chunk.count
            let whereClause = "GlobalID IN (" + chunk.map { "'\($0)'" }.joined(separator: ",") + ")"
            let features = try await layer.queryAll(FeatureQuery(whereClause: whereClause, outFields: ["GlobalID"], returnGeometry: false))
            for feature in features {
                if let id = feature[attribute: "GlobalID"]?.stringValue.flatMap(GlobalID.normalized) { counts[id, default: 0] += 1 }
            }
        }
        return counts
    }

    static func runServer<T: Sendable>(
        _ adjust: (inout LocalFeatureServerConfiguration) -> Void, _ body: @Sendable (LocalFeatureServerEndpoint) async throws -> T
    ) async throws -> T {
        var logger = Logger(label: "featureload.test-server")
        logger.logLevel = .critical
        var configuration = LocalFeatureServerConfiguration(host: "127.0.0.1", port: 0)
        adjust(&configuration)
        return try await withLocalFeatureServer(configuration, logger: logger, body)
    }

    @Test("the local service rejects a replayed GlobalID add with code 1022", .timeLimit(.minutes(1)))
    func duplicateGlobalId() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let layer = FeatureLayerClient(url: server.serviceURL + "/0", transport: transport)
                var generator = SplitMix64(seed: 5)
                let edits = LayerEdits(adds: Self.parks(1, generator: &generator, batch: 0))
                let options = ApplyEditsOptions(rollbackOnFailure: false, useGlobalIds: true)
                let first = try await layer.applyEdits(edits, options: options)
                #expect(first.addResults.map(\.success) == [true])
                let replay = try await layer.applyEdits(edits, options: options)
                #expect(replay.addResults.first?.success == false)
                #expect(replay.addResults.first?.error?.code == 1022)
                // Under rollbackOnFailure=true the duplicate rolls the whole batch back with an error body.
                let error = try await #require(throws: FeatureServiceError.self) {
                    try await layer.applyEdits(edits, options: .init(rollbackOnFailure: true, useGlobalIds: true))
                }
                #expect(error.arcgisError != nil)
            }
        }
    }

    @Test(
        "GlobalID adds under client-side 503s, 429s and dropped connections land exactly once", .timeLimit(.minutes(1)),
        arguments: [false, true])
    func clientSideFaults(rollbackOnFailure: Bool) async throws {
        try await withTestServer { server in
            try await withCurlTransport { curl in
                let faulty = ScriptedFaultTransport.random(
                    wrapping: curl, seed: rollbackOnFailure ? 11 : 14, unavailable: 0.2, throttled: 0.1, dropped: 0.2,
                    matching: { $0.path.hasSuffix("/applyEdits") })
                let layer = FeatureLayerClient(url: server.serviceURL + "/0", transport: faulty, authentication: nil)
                let before = try await layer.count()
                var generator = SplitMix64(seed: 21)
                var sent: [String] = []
                var retries = 0
                for batch in 0..<15 {
                    let adds = Self.parks(20, generator: &generator, batch: batch)
                    sent += adds.compactMap { $0[attribute: "GlobalID"]?.stringValue }
                    let outcome = try await layer.applyEdits(
                        LayerEdits(adds: adds), options: .init(rollbackOnFailure: rollbackOnFailure, useGlobalIds: true), retry: Self.policy)
                    #expect(outcome.adds.allSatisfy { $0.isApplied })
                    #expect(outcome.adds.allSatisfy { $0.result?.objectId != nil }, "objectIds known also for replays")
                    retries += outcome.attempts.retryCount
                }
                #expect(faulty.injectedFaults.contains(.dropAfterSend), "the seed injects post-commit drops")
                #expect(retries > 0)
                let occurrences = try await Self.occurrences(of: sent, layer: layer)
                #expect(occurrences.count == sent.count, "every feature is present")
                #expect(occurrences.values.allSatisfy { $0 == 1 }, "none twice")
                #expect(try await layer.count() == before + sent.count)
            }
        }
    }

    @Test(
        "GlobalID adds under the server's own 503s, 429s and dropped connections (before and after commit) land exactly once", .timeLimit(.minutes(1))
    )
    func serverSideFaults() async throws {
        try await Self.runServer({ configuration in
            let scope = FaultScope(operation: "applyEdits")
            configuration.faults = .init(
                seed: 3,
                rules: [
                    FaultRule(kind: .http503, rate: 0.2, scope: scope), FaultRule(kind: .http429, rate: 0.1, scope: scope, retryAfterSeconds: 0),
                    FaultRule(kind: .dropBeforeHandler, rate: 0.025, scope: scope), FaultRule(kind: .dropAfterCommit, rate: 0.025, scope: scope),
                ])
        }) { endpoint in
            try await withCurlTransport { transport in
                let layer = FeatureLayerClient(url: endpoint.serviceURL("parks") + "/0", transport: transport)
                let before = try await layer.count()
                var generator = SplitMix64(seed: 31)
                var sent: [String] = []
                var failures: [AttemptFailure] = []
                for batch in 0..<40 {
                    let adds = Self.parks(10, generator: &generator, batch: batch)
                    sent += adds.compactMap { $0[attribute: "GlobalID"]?.stringValue }
                    let outcome = try await layer.applyEdits(
                        LayerEdits(adds: adds), options: .init(rollbackOnFailure: batch % 2 == 0, useGlobalIds: true), retry: Self.policy)
                    #expect(outcome.adds.allSatisfy { $0.isApplied })
                    failures += outcome.attempts.compactMap(\.failure)
                }
                #expect(failures.contains { RetryClassification.classify($0) == .retryable(.unavailable) })
                #expect(failures.contains { $0.mayHaveBeenApplied }, "some connections dropped")
                let occurrences = try await Self.occurrences(of: sent, layer: layer)
                #expect(occurrences.count == sent.count)
                #expect(occurrences.values.allSatisfy { $0 == 1 })
                #expect(try await layer.count() == before + sent.count)
            }
        }
    }

    @Test("a token that expires mid-run is refreshed once and the run recovers", .timeLimit(.minutes(1)))
    func tokenExpiryMidRun() async throws {
        let serverTime = Mutex(Int64(1_700_000_000_000))
        try await Self.runServer({ configuration in
            configuration.auth = .init(users: UserDirectory(["editor": "correct horse"]), now: { serverTime.withLock { $0 } })
        }) { endpoint in
            try await withCurlTransport { transport in
                let tokenURL = "http://127.0.0.1:\(endpoint.port)/arcgis/tokens/generateToken"
                // The provider's own clock stands still, so it only learns of the expiry from the 498.
                let provider = GeneratedTokenProvider(
                    tokenURL: tokenURL, credentials: .init(username: "editor", password: "correct horse"), transport: transport,
                    now: { 1_700_000_000_000 })
                let service = FeatureService(url: endpoint.serviceURL("parks"), transport: transport, authentication: .init(provider: provider))
                let layer = service.layer(id: 0)
                let first = try await layer.count(where: "1=1", retry: .none)
                #expect(first.attempts.count == 1)
                serverTime.withLock { $0 += 2 * 3_600_000 }  // the token expires on the server
                let counts = try await withThrowingTaskGroup(of: Retried<Int>.self) { group in
                    for _ in 0..<8 { group.addTask { try await layer.count(where: "1=1", retry: .none) } }
                    return try await group.reduce(into: [Retried<Int>]()) { $0.append($1) }
                }
                #expect(counts.allSatisfy { $0.value == first.value })
                #expect(await provider.generatedCount == 2, "one refresh for all the 498s")
                #expect(counts.contains { $0.attempts.first?.refreshedToken == true })
                _ = try await service.layerInfo(id: 1)  // metadata goes through the same authentication
            }
        }
    }
}
