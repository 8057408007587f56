public import FeatureModel

extension FeatureLayerClient {
    /// Applies adds, updates and deletes (`POST …/<id>/applyEdits`), retrying as `policy` allows without ever
    /// applying an edit twice, and returns what became of each edit together with every attempt.
    ///
    /// **The exactly-once rule**: an add is resent blindly only when it carries a
    /// client-assigned GlobalID and `options.useGlobalIds` is true; a replay the service rejects as a duplicate
    /// (1022) is recognised as applied by an earlier attempt, and its objectId is looked up by GlobalID. After an
    /// *ambiguous* failure (the request may have reached the service: a timeout after send, a dropped connection,
    /// HTTP 500/502/504), adds without GlobalIDs are not resent but reported as
    /// ``EditOutcome/Status/outcomeUnknown``; with `rollbackOnFailure=true` the client checks the service (by
    /// GlobalID, or by deleted id) before resending. Updates and deletes are idempotent by id; a replayed delete
    /// answering 1011 after an ambiguous attempt counts as applied.
    ///
    /// ```swift
    /// let adds = features.map { feature in
    ///     var feature = feature
    ///     feature.attributes["GlobalID"] = .string(GlobalID.make())  // makes replays safe
    ///     return feature
    /// }
    /// let outcome = try await layer.applyEdits(
    ///     LayerEdits(adds: adds), options: .init(rollbackOnFailure: false, useGlobalIds: true), retry: RetryPolicy())
    /// metrics.count(retries: outcome.attempts.retryCount, backoff: outcome.attempts.totalBackoff)
    /// ```
    ///
    /// Cancelling the task stops at once, also during a backoff sleep; the edits may then have been applied or not.
    /// - Parameters:
    ///   - edits: The adds, updates and deletes.
    ///   - options: Rollback, GlobalID and edit-moment options.
    ///   - policy: When to retry; ``RetryPolicy/none`` makes one attempt (and still reports it).
    ///   - globalIdField: The layer's GlobalID field, where adds carry their GlobalIDs. Default `GlobalID`.
    /// - Returns: One outcome per edit, in request order, and every attempt.
    /// - Throws: ``FeatureServiceError`` when the policy gave up (with ``FeatureServiceError/attempts`` and
    ///   ``FeatureServiceError/stopReason``; ``FeatureServiceError/mayHaveBeenApplied`` tells whether an attempt
    ///   may have applied the edits) or the service rejected the batch; `CancellationError`.
    public func applyEdits(
        _ edits: LayerEdits, options: ApplyEditsOptions = .init(), retry policy: RetryPolicy, globalIdField: String = "GlobalID"
    ) async throws -> ApplyEditsOutcome {
        // Exactly-once needs every add's GlobalID: encoded adds come with theirs, or go through the single-attempt
        // applyEdits.
        precondition(
            edits.encodedAdds.map { $0.count == 0 || $0.globalIds?.count == $0.count } ?? true,
            "the retried applyEdits takes encoded adds only with their GlobalIDs")
        var run = RetriedEdits(
            client: self, edits: edits, options: options, policy: policy, globalIdField: globalIdField,
            log: AttemptLog(clock: exchange.startClock()))
        return try await run.run()
    }
}

/// One retried applyEdits: the I/O around an ``ApplyEditsRetryMachine``, which decides. Owned by one task.
private struct RetriedEdits {
    let client: FeatureLayerClient
    let policy: RetryPolicy
    var log: AttemptLog
    var jitter: JitterGenerator
    var machine: ApplyEditsRetryMachine<LayerEdits>

    var edits: LayerEdits { machine.edits }
    var options: ApplyEditsOptions { machine.options }
    var globalIdField: String { machine.globalIdField }
    var addIds: [String]? { machine.addIds }

    init(
        client: FeatureLayerClient, edits: LayerEdits, options: ApplyEditsOptions, policy: RetryPolicy, globalIdField: String,
        log: AttemptLog
    ) {
        self.client = client
        self.policy = policy
        self.log = log
        self.jitter = policy.makeGenerator()
        self.machine = ApplyEditsRetryMachine(edits: edits, options: options, globalIdField: globalIdField)
    }

    var url: String { client.applyEditsURL }

    mutating func run() async throws -> ApplyEditsOutcome {
        // The failure that stands when the machine gives up: the last send's, or the last check's before a send.
        var failure: FeatureServiceError?
        var request = client.applyEditsRequest(edits, options: options)
        var requestAdds = edits.addCount
        var action = machine.start()
        while true {
            switch action {
            case .send(let batch):
                if batch.addCount != requestAdds {
                    // The adds were abandoned: the rest of the batch goes on without them.
                    request = client.applyEditsRequest(batch, options: options)
                    requestAdds = batch.addCount
                }
                do {
                    let response = try await client.exchange.send(request, operation: "applyEdits", purpose: .request, log: &log)
                    let result = try FeatureServiceExchange.decode(response, as: ApplyEditsResult.self, operation: "applyEdits", url: url)
                    action = machine.answered(result)
                } catch let error as FeatureServiceError {
                    failure = error
                    let decision = log.decide(after: error, policy: policy, using: &jitter)
                    action = machine.sendFailed(
                        mayHaveBeenApplied: error.attemptFailure.mayHaveBeenApplied, serviceRejected: error.arcgisError != nil,
                        failure: "\(error.attemptFailure)", decision: decision)
                }
            case .check(let target):
                let isFinal: Bool
                if case .finalCheck = machine.phase { isFinal = true } else { isFinal = false }
                do {
                    action = machine.checked(try await check(target))
                } catch let error as FeatureServiceError {
                    // A final check's failure leaves the send's failure standing.
                    if !isFinal { failure = error }
                    // Checks count as attempts here, so a service that keeps failing them cannot loop forever.
                    let decision = log.decide(after: error, policy: policy, attempts: log.attempts.count, using: &jitter)
                    action = machine.checkFailed(decision: decision)
                }
            case .backoff(let delay):
                try await log.sleep(delay)
                action = machine.next()
            case .finish(.answered(let result, let ambiguousBefore, let abandonedAdds)):
                return try await outcome(of: result, ambiguousBefore: ambiguousBefore, abandonedAdds: abandonedAdds)
            case .finish(.appliedEarlier(let adds, let objectIdField)):
                return appliedEarlier(adds: adds, objectIdField: objectIdField)
            case .finish(.unknown(let reason)):
                return unknownOutcome(reason)
            case .giveUp(let reason):
                guard var error = failure else { preconditionFailure("the retry machine gave up without a reported failure") }
                error.attempts = log.attempts
                error.stopReason = reason
                throw error
            }
        }
    }

    /// The outcome of a successful response, with objectIds looked up for adds applied by an earlier attempt.
    private mutating func outcome(of result: ApplyEditsResult, ambiguousBefore: Bool, abandonedAdds: String?) async throws -> ApplyEditsOutcome {
        // Every POST may already have been sent once by the transport itself (libcurl's replay on a fresh
        // connection), so the machine reads a duplicate answer as "applied earlier" even on the first visible attempt.
        var (adds, updates, deletes) = ExactlyOnceRule.outcomes(of: result, ambiguousBefore: ambiguousBefore, keyedAdds: addIds != nil)
        if let abandonedAdds {
            adds = (0..<edits.addCount).map { _ in EditOutcome(status: .outcomeUnknown, result: nil, reason: abandonedAdds) }
        } else if let addIds {
            let earlier = adds.indices.filter { adds[$0].status == .appliedByEarlierAttempt && $0 < addIds.count }
            // A replay of an add that an earlier, ambiguous attempt applied can fail with another code than the
            // duplicate's (the service judged the replay, not the row): after such an attempt a failed add is checked.
            let attemptMayHaveApplied = log.attempts.contains { $0.failure?.mayHaveBeenApplied == true }
            let failed = attemptMayHaveApplied ? adds.indices.filter { adds[$0].status == .failed && $0 < addIds.count } : []
            if !earlier.isEmpty || !failed.isEmpty {
                var found: [String: Int64] = [:]
                var checkFailure: (any Error)?
                let ids = (earlier + failed).map { addIds[$0] }
                do {
                    found = try await retried { try await $0.lookUp(globalIds: ids) }.objectIds
                } catch {
                    checkFailure = error
                }
                for index in earlier {
                    adds[index].result = EditResult(objectId: found[addIds[index]], globalId: addIds[index], success: true)
                }
                for index in failed {
                    let globalId = addIds[index]
                    if let objectId = found[globalId] {
                        adds[index] = EditOutcome(
                            status: .appliedByEarlierAttempt, result: EditResult(objectId: objectId, globalId: globalId, success: true))
                    } else if let checkFailure {
                        adds[index] = EditOutcome(
                            status: .outcomeUnknown, result: nil,
                            reason: "rejected on a replay, and the check whether an earlier attempt applied it failed: \(checkFailure)")
                    }
                }
            }
        }
        return ApplyEditsOutcome(adds: adds, updates: updates, deletes: deletes, attempts: log.attempts, editMoment: result.editMoment)
    }

    /// `body` (a look-up: idempotent) retried as the policy allows, counting its own failed attempts, within the
    /// operation's budget.
    /// - Throws: The last ``FeatureServiceError`` once the policy gives up; `CancellationError`.
    private mutating func retried<T>(_ body: (inout Self) async throws -> T) async throws -> T {
        try await RetryDriver.run {
            try await body(&self)
        } decide: { error, failures in
            guard case .retry(let delay) = log.decide(after: error, policy: policy, attempts: failures, using: &jitter) else { return .stop }
            return .retry(after: delay)
        } sleep: { delay in
            try await log.sleep(delay)
        }
    }

    /// Asks the service whether `target` is in place.
    private mutating func check(_ target: ExactlyOnceRule.VerificationTarget) async throws -> ApplyEditsRetryMachine<LayerEdits>.Found {
        switch target {
        case .addedGlobalIds(let ids):
            let lookup = try await lookUp(globalIds: ids)
            return .of(target, count: lookup.objectIds.count, adds: lookup.objectIds, objectIdField: lookup.objectIdField)
        case .deletedObjectIds(let ids):
            return .of(target, count: try await count(FeatureQuery(objectIds: ids, outFields: [], returnGeometry: false, returnCountOnly: true)))
        case .deletedGlobalIds(let ids):
            let query = FeatureQuery(
                whereClause: RelationshipKey.whereIn(globalIdField, ids.map(JSONValue.string)), outFields: [], returnGeometry: false,
                returnCountOnly: true)
            return .of(target, count: try await count(query))
        }
    }

    private mutating func count(_ query: FeatureQuery) async throws -> Int {
        let request = HTTPRequest.form(url: client.exchangeURL("query"), fields: query.formFields)
        let response = try await client.exchange.send(request, operation: "applyEdits check", purpose: .verification, log: &log)
        return try FeatureServiceExchange.decode(response, as: CountResult.self, operation: "applyEdits check", url: request.url).count
    }

    /// The objectIds of the rows with `globalIds`, queried in chunks of 500 (`FeatureLayerClient.lookUp`).
    private mutating func lookUp(globalIds: [String]) async throws -> (objectIds: [String: Int64], objectIdField: String?) {
        try await client.lookUp(globalIds: globalIds, globalIdField: globalIdField, log: &log)
    }

    /// Every edit applied by an earlier attempt (a verified atomic batch).
    private func appliedEarlier(adds found: [String: Int64], objectIdField: String?) -> ApplyEditsOutcome {
        let adds = (0..<edits.addCount).map { index -> EditOutcome in
            let globalId = addIds.flatMap { index < $0.count ? $0[index] : nil }
            return EditOutcome(
                status: .appliedByEarlierAttempt,
                result: EditResult(objectId: globalId.flatMap { found[$0] }, globalId: globalId, success: true))
        }
        let oidField = objectIdField ?? "OBJECTID"
        let updates = edits.updates.map { update in
            EditOutcome(
                status: .appliedByEarlierAttempt,
                result: EditResult(
                    objectId: update[attribute: oidField]?.intValue,
                    globalId: update[attribute: globalIdField]?.stringValue.flatMap(GlobalID.normalized), success: true))
        }
        let deletes =
            edits.deletes.isEmpty
            ? edits.deleteGlobalIds.map {
                EditOutcome(status: .appliedByEarlierAttempt, result: EditResult(objectId: nil, globalId: GlobalID.normalized($0), success: true))
            }
            : edits.deletes.map { EditOutcome(status: .appliedByEarlierAttempt, result: EditResult(objectId: $0, success: true)) }
        return ApplyEditsOutcome(adds: adds, updates: updates, deletes: deletes, attempts: log.attempts)
    }

    /// Every edit of unknown fate, for `reason`.
    private func unknownOutcome(_ reason: String) -> ApplyEditsOutcome {
        let unknown = EditOutcome(status: .outcomeUnknown, result: nil, reason: reason)
        let deleteCount = edits.deletes.isEmpty ? edits.deleteGlobalIds.count : edits.deletes.count
        return ApplyEditsOutcome(
            adds: Array(repeating: unknown, count: edits.addCount), updates: Array(repeating: unknown, count: edits.updates.count),
            deletes: Array(repeating: unknown, count: deleteCount), attempts: log.attempts)
    }
}

extension RetryPolicy.Decision {
    /// The reason, when the decision is to stop.
    var stopReason: RetryPolicy.StopReason? {
        if case .stop(let reason) = self { return reason }
        return nil
    }
}

/// The rows a look-up by GlobalID found: only their attributes and the names of the key fields. Read with the
/// byte-level parser, not `JSONDecoder`: a run over features that are already there (a re-run with a new journal)
/// looks up every add, and decoding whole feature sets took most of its CPU. As lenient as ``FeatureSet``: no
/// `features` is none, and a feature without attributes is passed over. (`Decodable` only because
/// `FeatureServiceExchange.decode` asks for it; the byte-level path is the one taken.)
struct FoundRows: Decodable, JSONValueDecodable {
    var objectIdFieldName: String?
    var globalIdFieldName: String?
    var rows: [Feature]

    init(json: JSONValue) throws(WireDecodingError) {
        guard case .object(let members) = json else { throw WireDecodingError(path: "", expected: "a feature set object") }
        objectIdFieldName = members["objectIdFieldName"]?.stringValue
        globalIdFieldName = members["globalIdFieldName"]?.stringValue
        rows = []
        switch members["features"] {
        case nil, .null?: return
        case .array(let features)?:
            rows.reserveCapacity(features.count)
            for feature in features {
                if case .object(let parts) = feature, case .object(let attributes)? = parts["attributes"] {
                    rows.append(Feature(attributes: attributes))
                }
            }
        default:
            throw WireDecodingError(path: ".features", expected: "an array")
        }
    }

    init(from decoder: any Decoder) throws {
        try self.init(json: JSONValue(from: decoder))
    }
}
