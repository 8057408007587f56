import FeatureModel

/// One atomic service-level applyEdits (``FeatureService/applyAtomically(_:retry:uploads:)``): the I/O around an
/// ``ApplyEditsRetryMachine`` over ``AtomicAdds``, which decides, as the layer-level applyEdits' driver does. It
/// sends, looks the adds up by GlobalID when the machine asks, sleeps out backoffs, and turns where the machine ends
/// into an ``AtomicAddsOutcome``. Owned by one task.
struct RetriedAtomicAdds {
    /// Why the last send failed.
    enum Failure {
        /// The service refused the request: an ArcGIS error the retry rules would not send again, or a per-edit
        /// failure, which under `rollbackOnFailure` rolled the whole request back.
        case refused(ArcGISError)
        /// Any other failure.
        case failed(FeatureServiceError)
    }

    /// What the last look-up since the last send found.
    enum Check {
        /// The objectIds of the adds found, by layer and GlobalID, and how many.
        case found([Int: [String: Int64]], count: Int)
        /// The look-up failed.
        case failed
    }

    static let operation = "service applyEdits"

    let request: HTTPRequest
    /// The service-level endpoint the request goes to.
    let endpoint: FeatureLayerClient
    /// Each layer with adds, to look them up.
    let layers: [Int: FeatureLayerClient]
    let policy: RetryPolicy
    var log: AttemptLog
    var jitter: JitterGenerator
    var machine: ApplyEditsRetryMachine<AtomicAdds>
    var failure: Failure?
    var lastCheck: Check?

    var edits: AtomicAdds { machine.edits }

    init(
        edits: AtomicAdds, options: ApplyEditsOptions, request: HTTPRequest, endpoint: FeatureLayerClient, layers: [Int: FeatureLayerClient],
        policy: RetryPolicy
    ) {
        self.request = request
        self.endpoint = endpoint
        self.layers = layers
        self.policy = policy
        self.log = AttemptLog(clock: endpoint.exchange.startClock())
        self.jitter = policy.makeGenerator()
        self.machine = ApplyEditsRetryMachine(edits: edits, settings: options)
    }

    /// Carries out the machine's actions until it finishes or gives up.
    /// - Throws: `CancellationError`, also during a backoff sleep; the edits may then have been applied or not.
    mutating func run() async throws -> AtomicAddsOutcome {
        var action = machine.start()
        while true {
            switch action {
            case .send:
                lastCheck = nil
                action = try await send()
            case .check(let target):
                action = try await check(target)
            case .backoff(let delay):
                try await log.sleep(delay)
                action = machine.next()
            case .finish(.answered(let answer, _, _)):
                return outcome(.applied, objectIds(answeredBy: answer))
            case .finish(.appliedEarlier):
                return outcome(.appliedEarlier, foundObjectIds)
            case .finish(.unknown(let reason)):
                return outcome(.unknown(reason), foundObjectIds)
            case .giveUp(let reason):
                return outcome(gaveUp: reason)
            }
        }
    }

    /// Sends the request and tells the machine how it went.
    /// - Throws: `CancellationError`.
    private mutating func send() async throws -> ApplyEditsRetryMachine<AtomicAdds>.Action {
        do {
            let response = try await endpoint.exchange.send(request, operation: Self.operation, purpose: .request, log: &log)
            let answer = try FeatureServiceExchange.decode(response, as: [ApplyEditsResult].self, operation: Self.operation, url: request.url)
            guard let refused = answer.flatMap(\.failures).first else { return machine.answered(answer) }
            // A service-level answer reports a per-edit failure in place; with rollbackOnFailure the service applied
            // nothing of the request (one that answers so anyway is taken at its word). Per-edit failures are never
            // retried: the service rejected the batch, as a layer's rolled-back batch is, and the machine checks it.
            let refusal = ArcGISError(
                code: refused.error?.code ?? 400, message: refused.error?.description ?? "the service refused an edit", details: [])
            failure = .refused(refusal)
            return machine.sendFailed(
                mayHaveBeenApplied: false, serviceRejected: true, failure: "a refused edit (\(refusal.message))", decision: .stop(.notRetryable))
        } catch let error as FeatureServiceError {
            let ambiguous = error.attemptFailure.mayHaveBeenApplied
            // A refusal is an answer the retry rules would not send again (a 429 or 503 in an envelope is retried).
            if let arcgis = error.arcgisError, !ambiguous, RetryClassification.classify(error.attemptFailure) == .permanent {
                failure = .refused(arcgis)
            } else {
                failure = .failed(error)
            }
            let decision = log.decide(after: error, policy: policy, using: &jitter)
            return machine.sendFailed(
                mayHaveBeenApplied: ambiguous, serviceRejected: error.arcgisError != nil, failure: "\(error.attemptFailure)", decision: decision)
        }
    }

    /// Looks every add up by GlobalID, layer by layer, and tells the machine what it found.
    /// - Throws: `CancellationError`.
    private mutating func check(_ target: ExactlyOnceRule.VerificationTarget) async throws -> ApplyEditsRetryMachine<AtomicAdds>.Action {
        var found: [Int: [String: Int64]] = [:]
        var all: [String: Int64] = [:]
        do {
            // The target holds the adds' GlobalIDs of every layer; each layer is asked for its own.
            for layer in edits.addLayers {
                guard let client = layers[layer] else { continue }
                let ids = (edits.adds[layer] ?? []).compactMap { edits.globalId(of: $0, layer: layer) }
                let objectIdField = edits.objectIdField(layer)
                let rows = try await client.lookUp(
                    globalIds: ids, globalIdField: edits.globalIdField(layer), objectIdField: objectIdField,
                    outFields: [objectIdField, edits.globalIdField(layer)], operation: Self.operation + " check", log: &log
                ).objectIds
                found[layer] = rows
                all.merge(rows) { first, _ in first }
            }
        } catch let error as FeatureServiceError {
            lastCheck = .failed
            // Checks count as attempts, so a service that keeps failing them cannot loop for ever.
            return machine.checkFailed(decision: log.decide(after: error, policy: policy, attempts: log.attempts.count, using: &jitter))
        }
        // Counted layer by layer: a GlobalID is a key within its layer.
        let count = found.values.reduce(0) { $0 + $1.count }
        lastCheck = .found(found, count: count)
        return machine.checked(.of(target, count: count, adds: all))
    }

    /// The objectIds the last look-up found, by layer.
    private var foundObjectIds: [Int: [String: Int64]] {
        if case .found(let found, _) = lastCheck { return found }
        return [:]
    }

    /// The objectIds of the adds, by layer and GlobalID, as the service's answer gives them.
    private func objectIds(answeredBy answer: [ApplyEditsResult]) -> [Int: [String: Int64]] {
        var objectIds: [Int: [String: Int64]] = [:]
        for result in answer {
            guard let layer = result.id, let adds = edits.adds[layer] else { continue }
            for (feature, added) in zip(adds, result.addResults) {
                if let globalId = edits.globalId(of: feature, layer: layer), let objectId = added.objectId {
                    objectIds[layer, default: [:]][globalId] = objectId
                }
            }
        }
        return objectIds
    }

    /// The outcome once the machine gave up for `reason`: a refusal is rejected; a failure that may have applied the
    /// request and that no look-up settled is unknown; any other failure failed.
    private func outcome(gaveUp reason: RetryPolicy.StopReason) -> AtomicAddsOutcome {
        switch failure {
        case .refused(let refusal):
            guard case .found(let found, let count) = lastCheck else {
                if case .failed = lastCheck {
                    let reason = "the service refused the request (\(refusal.message)), and the check whether an earlier attempt applied it failed"
                    return outcome(.unknown(reason))
                }
                return outcome(.rejected(refusal))
            }
            return outcome(.rejected(refusal), found, present: count)
        case .failed(let error):
            let failed = error.attemptFailure
            guard machine.ambiguous else { return outcome(.failed("\(failed) (\(reason))"), lastFailure: failed) }
            switch lastCheck {
            case .found(let found, let count):
                let expected = machine.addIds?.count ?? 0
                return outcome(.unknown("\(count) of \(expected) adds are in the service after \(failed)"), found)
            case .failed:
                return outcome(.unknown("\(failed), and the check whether it was applied failed"), lastFailure: failed)
            case nil:
                return outcome(.unknown(edits.uncheckedReason(after: "\(failed)")))
            }
        case nil:
            preconditionFailure("the retry machine gave up without a reported failure")
        }
    }

    private func outcome(
        _ status: AtomicAddsOutcome.Status, _ objectIds: [Int: [String: Int64]] = [:], present: Int = 0, lastFailure: AttemptFailure? = nil
    ) -> AtomicAddsOutcome {
        AtomicAddsOutcome(status: status, objectIds: objectIds, alreadyPresent: present, attempts: log.attempts, lastFailure: lastFailure)
    }
}
