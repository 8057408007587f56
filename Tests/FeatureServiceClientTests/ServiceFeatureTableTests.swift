import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Synchronization
import Testing

/// The table actor over an in-memory transport: how pending edits become batches, how many run at once, and what a
/// failed batch leaves behind.
@Suite struct ServiceFeatureTableTests {
    /// Counts requests in flight and answers applyEdits with one success per add after a short pause.
    final class Probe: Sendable {
        let state = Mutex((inFlight: 0, peak: 0, requests: 0))
        let failEvery: Int?

        init(failEvery: Int? = nil) { self.failEvery = failEvery }

        func handle(_ request: HTTPRequest) async throws -> HTTPResponse {
            guard request.path.hasSuffix("/applyEdits") else { return Fixtures.metadataHandler(request) }
            let number = state.withLock { state in
                state.inFlight += 1
                state.peak = max(state.peak, state.inFlight)
                state.requests += 1
                return state.requests
            }
            try await Task.sleep(for: .milliseconds(20))
            state.withLock { $0.inFlight -= 1 }
            if let failEvery, number % failEvery == 0 {
                return .json(#"{"error":{"code":400,"message":"Unable to complete operation.","details":["Operation rolled back."]}}"#)
            }
            let adds = try JSONReader.parse(request.formValue("adds") ?? "[]")
            guard case .array(let items) = adds else { return .json("{}") }
            let results = items.indices.map { #"{"objectId":\#($0 + 1),"success":true}"# }.joined(separator: ",")
            return .json(#"{"addResults":[\#(results)],"updateResults":[],"deleteResults":[]}"#)
        }
    }

    static func parks(_ transport: InMemoryTransport) async throws -> ServiceFeatureTable {
        try await FeatureService(url: Fixtures.serviceURL, transport: transport).table(id: 0)
    }

    @Test("applyEdits splits pending edits into batches and keeps at most `concurrency` in flight", .timeLimit(.minutes(1)))
    func boundedConcurrency() async throws {
        let probe = Probe()
        let table = try await Self.parks(InMemoryTransport(probe.handle))
        for index in 0..<90 { await table.add(table.makeFeature(attributes: ["NAME": .string("Park \(index)")])) }
        let results = try await table.applyEdits(batchSize: 10, concurrency: 3)
        #expect(results.count == 90)
        #expect(results.allSatisfy { $0.isApplied })
        let state = probe.state.withLock { $0 }
        #expect(state.requests == 9)
        #expect(state.peak == 3)
        #expect(await table.hasLocalEdits == false)
    }

    @Test("a rolled-back batch leaves its edits pending with the batch's error; the other batches apply", .timeLimit(.minutes(1)))
    func failedBatch() async throws {
        let probe = Probe(failEvery: 2)
        let table = try await Self.parks(InMemoryTransport(probe.handle))
        for index in 0..<4 { await table.add(table.makeFeature(attributes: ["NAME": .string("Park \(index)")])) }
        let results = try await table.applyEdits(batchSize: 2, concurrency: 1, rollbackOnFailure: true)
        #expect(results.map(\.isApplied) == [true, true, false, false])
        #expect(results.last?.error?.code == 400)
        let pending = await table.pendingEdits
        #expect(pending.count == 2)
        #expect(pending.allSatisfy { $0.lastError?.code == 400 })
    }

    @Test("makeFeature assigns a GlobalID and the template's values; pending edits merge as the SDK merges them")
    func makeAndMerge() async throws {
        let table = try await Self.parks(InMemoryTransport { Fixtures.metadataHandler($0) })
        let template = FeatureTemplate(name: "Good park", attributes: ["CONDITION": 1])
        let feature = table.makeFeature(template: template, attributes: ["NAME": "Zion"])
        #expect(feature.string("GlobalID").flatMap(GlobalID.normalized) != nil)
        #expect(feature[attribute: "CONDITION"] == 1)
        await table.add(feature)
        var renamed = feature
        renamed.attributes["NAME"] = "Zion NP"
        try await table.update(renamed)
        #expect(await table.pendingEdits.map(\.kind) == [.add])
        #expect(await table.pendingEdits.first?.feature.string("NAME") == "Zion NP")
        try await table.delete(renamed)
        #expect(await table.hasLocalEdits == false)
        await #expect(throws: FeatureServiceError.self) { try await table.update(Feature(attributes: ["NAME": "no key"])) }
    }
}
