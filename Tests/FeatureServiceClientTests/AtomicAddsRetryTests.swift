import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Synchronization
import Testing

/// `FeatureService.applyAtomically` over an in-memory service-level applyEdits: the retry machine's decisions carried
/// out — look-ups by GlobalID after an ambiguous failure or a refusal, never a second send of an applied request.
@Suite struct AtomicAddsRetryTests {
    static let serviceURL = "http://test/arcgis/rest/services/Requests/FeatureServer"
    static let parent = "{AAAAAAAA-0000-4000-8000-000000000001}"
    static let child = "{AAAAAAAA-0000-4000-8000-000000000002}"

    /// A service of two layers keeping rows by GlobalID: one atomic applyEdits of adds (a GlobalID already there
    /// fails the whole request with 1022, in place, as a service-level answer does) and `GlobalID IN (…)` queries.
    final class FakeService: Sendable {
        private let rows = Mutex<[String: (layer: Int, objectId: Int64)]>([:])

        var count: Int { rows.withLock { $0.count } }

        func seed(_ globalId: String, layer: Int) {
            rows.withLock { $0[globalId] = (layer, Int64($0.count + 1)) }
        }

        func answer(_ request: HTTPRequest) throws -> HTTPResponse {
            if request.path.hasSuffix("/FeatureServer/applyEdits") { return try applyEdits(request) }
            guard request.path.hasSuffix("/query"), let layer = Int(request.path.split(separator: "/").dropLast().last ?? "") else {
                return .json(#"{"error":{"code":404,"message":"Not found","details":[]}}"#)
            }
            // `GlobalID IN ('{…}','{…}')`: the quoted values.
            let parts = (request.formValue("where") ?? "").split(separator: "'", omittingEmptySubsequences: false)
            let wanted = parts.indices.filter { $0 % 2 == 1 }.map { String(parts[$0]) }
            let features = rows.withLock { rows -> [String] in
                wanted.compactMap { id -> String? in
                    guard let row = rows[id], row.layer == layer else { return nil }
                    return #"{"attributes":{"OBJECTID":\#(row.objectId),"GlobalID":"\#(id)"}}"#
                }
            }
            return .json(#"{"objectIdFieldName":"OBJECTID","globalIdFieldName":"GlobalID","features":[\#(features.joined(separator: ","))]}"#)
        }

        private func applyEdits(_ request: HTTPRequest) throws -> HTTPResponse {
            guard case .array(let layers) = try JSONReader.parse(request.formValue("edits") ?? "[]") else { return .json("[]") }
            let adds: [(layer: Int, globalId: String)] = layers.flatMap { layer -> [(layer: Int, globalId: String)] in
                guard case .object(let members) = layer, let id = members["id"]?.intValue, case .array(let features)? = members["adds"] else {
                    return []
                }
                return features.compactMap { feature in
                    guard case .object(let parts) = feature, case .object(let attributes)? = parts["attributes"],
                        let globalId = attributes["GlobalID"]?.stringValue
                    else { return nil }
                    return (Int(id), globalId)
                }
            }
            let results = rows.withLock { rows -> [ApplyEditsResult] in
                let refused = adds.contains { rows[$0.globalId] != nil }
                if !refused { for add in adds { rows[add.globalId] = (add.layer, Int64(rows.count + 1)) } }
                return Set(adds.map(\.layer)).sorted().map { layer in
                    let results = adds.filter { $0.layer == layer }.map { add in
                        refused
                            ? (rows[add.globalId] != nil
                                ? EditResult.failure(globalId: add.globalId, code: 1022, description: "Unique constraint violation")
                                : EditResult.failure(globalId: add.globalId, code: 1003, description: "Operation rolled back."))
                            : EditResult(objectId: rows[add.globalId]?.objectId, globalId: add.globalId, success: true)
                    }
                    return ApplyEditsResult(id: layer, addResults: results)
                }
            }
            return try .json(encoding: results)
        }
    }

    static let edits = AtomicAdds(
        adds: [0: [Feature(attributes: ["GlobalID": .string(parent)])], 1: [Feature(attributes: ["GlobalID": .string(child)])]],
        globalIdFields: [0: "GlobalID", 1: "GlobalID"], objectIdFields: [0: "OBJECTID", 1: "OBJECTID"])

    static func isSend(_ request: HTTPRequest) -> Bool { request.path.hasSuffix("/FeatureServer/applyEdits") }

    static func apply(
        _ service: FakeService, clock: ManualClock = ManualClock(), policy: RetryPolicy = RetryPolicy(jitterSeed: 3),
        fault: @escaping ScriptedFaultTransport.Decision
    ) async throws -> (AtomicAddsOutcome, ScriptedFaultTransport) {
        let transport = ScriptedFaultTransport(wrapping: InMemoryTransport { try service.answer($0) }, decide: fault)
        let client = FeatureService(url: serviceURL, transport: transport, authentication: nil, clock: clock)
        return (try await client.applyAtomically(edits, retry: policy), transport)
    }

    @Test("an answer applies it; a 503 before it is retried without a look-up", .timeLimit(.minutes(1)))
    func applied() async throws {
        let service = FakeService()
        let (outcome, _) = try await Self.apply(service) { index, _ in index == 0 ? .status(503) : .none }
        #expect(outcome.status == .applied)
        #expect(outcome.objectIds[0]?[Self.parent] != nil && outcome.objectIds[1]?[Self.child] != nil)
        #expect(outcome.attempts.map(\.purpose) == [.request, .request])
        #expect(service.count == 2)
    }

    @Test("a connection dropped after the request committed: looked up after the backoff, found, never sent again", .timeLimit(.minutes(1)))
    func droppedAfterCommit() async throws {
        let service = FakeService()
        let clock = ManualClock()
        let (outcome, _) = try await Self.apply(service, clock: clock) { index, _ in index == 0 ? .dropAfterSend : .none }
        #expect(outcome.status == .appliedEarlier)
        #expect(outcome.objectIds == [0: [Self.parent: 1], 1: [Self.child: 2]])
        #expect(outcome.attempts.map(\.purpose) == [.request, .verification, .verification], "one look-up per layer, after one send")
        #expect(clock.sleeps.count == 1, "the look-up follows the backoff")
        #expect(service.count == 2)
    }

    @Test("a refused request is looked up once: all there is applied earlier, some there is rejected with them", .timeLimit(.minutes(1)))
    func refused() async throws {
        let replayed = FakeService()
        replayed.seed(Self.parent, layer: 0)
        replayed.seed(Self.child, layer: 1)
        let (again, _) = try await Self.apply(replayed) { _, _ in .none }
        #expect(again.status == .appliedEarlier)
        #expect(again.objectIds == [0: [Self.parent: 1], 1: [Self.child: 2]])

        let half = FakeService()
        half.seed(Self.parent, layer: 0)
        let (outcome, transport) = try await Self.apply(half) { _, _ in .none }
        guard case .rejected(let error) = outcome.status else {
            Issue.record("expected a rejection, got \(outcome.status)")
            return
        }
        #expect(error.code == 1022)
        #expect(outcome.alreadyPresent == 1 && outcome.objectIds[0] == [Self.parent: 1])
        #expect(transport.requestCount == 3, "one send, one look-up per layer; a refusal is not sent again")
        #expect(half.count == 1)
    }

    @Test("when the look-up keeps failing after an ambiguous failure the outcome is unknown, and nothing is resent", .timeLimit(.minutes(1)))
    func checkFails() async throws {
        let service = FakeService()
        let (outcome, _) = try await Self.apply(service, policy: RetryPolicy(maximumAttempts: 3, jitterSeed: 3)) { index, request in
            index == 0 ? .timeoutAfterSend : Self.isSend(request) ? .none : .status(503)
        }
        guard case .unknown(let reason) = outcome.status else {
            Issue.record("expected unknown, got \(outcome.status)")
            return
        }
        #expect(reason.contains("the check whether it was applied failed"))
        #expect(outcome.lastFailure?.mayHaveBeenApplied == true)
        #expect(outcome.attempts.map(\.purpose) == [.request, .verification, .verification], "checks count as attempts: three in all")
        #expect(outcome.attempts.filter { $0.purpose == .request }.count == 1, "never sent again")
    }

    @Test("giving up on 503s fails it, with the last failure, after no look-up", .timeLimit(.minutes(1)))
    func failed() async throws {
        let service = FakeService()
        let (outcome, _) = try await Self.apply(service, policy: RetryPolicy(maximumAttempts: 2, jitterSeed: 3)) { _, _ in .status(503) }
        guard case .failed(let reason) = outcome.status else {
            Issue.record("expected failed, got \(outcome.status)")
            return
        }
        #expect(reason.contains("HTTP 503"))
        #expect(outcome.lastFailure == .httpStatus(503))
        #expect(outcome.attempts.map(\.purpose) == [.request, .request])
        #expect(service.count == 0)
    }
}
