import FeatureModel
import FeatureServiceClient
import Synchronization

/// What one scenario run produced: metrics, the object IDs the service reported for successful adds, timing.
public struct ScenarioOutcome: Sendable {
    public var metrics: ScenarioMetrics
    public var addedObjectIds: [Int64]
    public var iterationsStarted: Int
    public var elapsed: Duration
    public var stopReason: StopReason
}

/// Carries out one scenario: `vus` workers in a task group, each claiming iterations and sending one
/// applyEdits request per iteration, until the pacing rule says stop.
///
/// Structured: the workers are child tasks that return their metrics, which the parent folds; nothing is shared
/// but the iteration counter. Cancellation stops new iterations; requests in flight are cancelled with the task.
struct ScenarioExecution<C: Clock<Duration>>: Sendable {
    let spec: ScenarioSpec
    let layer: FeatureLayerClient
    let generator: FeatureGenerator
    let clock: C
    /// Offset added to iteration numbers so scenarios of one run generate different features.
    let indexBase: Int
    /// The layer's GlobalID field, where client GlobalIDs go.
    var globalIdField: String? { generator.layer.globalIdField }

    private struct WorkerResult: Sendable {
        var metrics = ScenarioMetrics()
        var objectIds: [Int64] = []
        var stopReason: StopReason = .iterationsDone
    }

    func run() async -> ScenarioOutcome {
        let pacing = SharedIterations(iterations: spec.iterations, maxDuration: spec.maxDuration)
        let counter = IterationCounter()
        let started = clock.now
        var total = ScenarioMetrics()
        var objectIds: [Int64] = []
        var stopReason = StopReason.iterationsDone
        await withTaskGroup(of: WorkerResult.self) { group in
            for _ in 0..<spec.vus {
                group.addTask {
                    await worker(pacing: pacing, counter: counter, started: started)
                }
            }
            for await result in group {
                total.merge(result.metrics)
                objectIds.append(contentsOf: result.objectIds)
                if result.stopReason != .iterationsDone { stopReason = result.stopReason }
            }
        }
        let elapsed = started.duration(to: clock.now)
        let claimed = min(counter.value.load(ordering: .relaxed), spec.iterations)
        return ScenarioOutcome(
            metrics: total, addedObjectIds: objectIds, iterationsStarted: min(claimed, total.requests),
            elapsed: elapsed, stopReason: stopReason)
    }

    private func worker(pacing: SharedIterations, counter: IterationCounter, started: C.Instant) async -> WorkerResult {
        var result = WorkerResult()
        while true {
            if Task.isCancelled {
                result.stopReason = .cancelled
                return result
            }
            let claimed = counter.value.wrappingAdd(1, ordering: .relaxed).oldValue
            switch pacing.decide(claimed: claimed, elapsed: started.duration(to: clock.now)) {
            case .stop(let reason):
                result.stopReason = reason
                return result
            case .start(let iteration):
                let first = indexBase + iteration * spec.batchSize
                var adds = generator.features(from: first, count: spec.batchSize)
                if spec.clientGlobalIds, let globalIdField {
                    for index in adds.indices { adds[index].attributes[globalIdField] = .string(GlobalID.make()) }
                }
                if spec.retry == nil && !spec.clientGlobalIds {
                    await sendOnce(LayerEdits(adds: adds), into: &result)
                } else {
                    await sendRetried(LayerEdits(adds: adds), into: &result)
                }
                if Task.isCancelled {
                    result.stopReason = .cancelled
                    return result
                }
            }
        }
    }

    private var options: ApplyEditsOptions {
        ApplyEditsOptions(rollbackOnFailure: spec.rollbackOnFailure, useGlobalIds: spec.clientGlobalIds)
    }

    /// One request, no retry: the fastest path, for measuring the service rather than the client's recovery.
    private func sendOnce(_ edits: LayerEdits, into result: inout WorkerResult) async {
        let begin = clock.now
        do {
            let answer = try await layer.applyEdits(edits, options: options)
            result.metrics.latency.record(begin.duration(to: clock.now))
            result.metrics.requests += 1
            result.metrics.attempts += 1
            result.metrics.editsSent += edits.adds.count
            for add in answer.addResults {
                if add.success, let objectId = add.objectId {
                    result.metrics.editsSucceeded += 1
                    result.objectIds.append(objectId)
                } else {
                    result.metrics.editsFailed += 1
                    result.metrics.recordError(Self.describe(add.error))
                }
            }
            recordMissing(answered: answer.addResults.count, sent: edits.adds.count, into: &result)
        } catch {
            guard !Task.isCancelled else { return }
            result.metrics.latency.record(begin.duration(to: clock.now))
            result.metrics.requests += 1
            result.metrics.attempts += 1
            recordFailedRequest(error, edits: edits.adds.count, into: &result)
        }
    }

    /// One request under the scenario's retry policy and exactly-once rule; every attempt is counted.
    private func sendRetried(_ edits: LayerEdits, into result: inout WorkerResult) async {
        let begin = clock.now
        do {
            let outcome = try await layer.applyEdits(
                edits, options: options, retry: retryPolicy, globalIdField: globalIdField ?? "GlobalID")
            result.metrics.latency.record(begin.duration(to: clock.now))
            result.metrics.requests += 1
            result.metrics.editsSent += edits.adds.count
            result.metrics.attempts += outcome.attempts.count
            result.metrics.retries += outcome.attempts.retryCount
            result.metrics.backoffSeconds += outcome.attempts.totalBackoff.seconds
            for add in outcome.adds {
                switch add.status {
                case .applied, .appliedByEarlierAttempt:
                    guard let objectId = add.result?.objectId, objectId >= 0 else {
                        result.metrics.editsFailed += 1
                        result.metrics.recordError("edit applied but the service gave no objectId")
                        continue
                    }
                    result.metrics.editsSucceeded += 1
                    if add.status == .appliedByEarlierAttempt { result.metrics.editsAppliedByEarlierAttempt += 1 }
                    result.objectIds.append(objectId)
                case .failed:
                    result.metrics.editsFailed += 1
                    result.metrics.recordError(Self.describe(add.result?.error))
                case .outcomeUnknown:
                    result.metrics.editsFailed += 1
                    result.metrics.editsUnknown += 1
                    result.metrics.recordError("outcome unknown: " + (add.reason ?? "the request may have been applied"))
                }
            }
            recordMissing(answered: outcome.adds.count, sent: edits.adds.count, into: &result)
        } catch {
            guard !Task.isCancelled else { return }
            result.metrics.latency.record(begin.duration(to: clock.now))
            result.metrics.requests += 1
            if let failure = error as? FeatureServiceError {
                result.metrics.attempts += max(failure.attempts.count, 1)
                result.metrics.retries += failure.attempts.retryCount
                result.metrics.backoffSeconds += failure.attempts.totalBackoff.seconds
                if failure.mayHaveBeenApplied { result.metrics.editsUnknown += edits.adds.count }
            } else {
                result.metrics.attempts += 1
            }
            recordFailedRequest(error, edits: edits.adds.count, into: &result)
        }
    }

    private var retryPolicy: RetryPolicy {
        guard let retry = spec.retry else { return .none }
        return RetryPolicy(
            maximumAttempts: retry.maxAttempts, initialBackoff: retry.initialBackoff, maximumBackoff: retry.maxBackoff,
            budget: retry.budget)
    }

    private func recordMissing(answered: Int, sent: Int, into result: inout WorkerResult) {
        guard answered < sent else { return }
        result.metrics.editsFailed += sent - answered
        result.metrics.recordError("the service answered for \(answered) of \(sent) adds")
    }

    private func recordFailedRequest(_ error: any Error, edits: Int, into result: inout WorkerResult) {
        result.metrics.failedRequests += 1
        result.metrics.editsSent += edits
        result.metrics.editsFailed += edits
        result.metrics.recordError(String(describing: error))
    }

    private static func describe(_ error: EditError?) -> String {
        "edit failed: " + (error.map { "code \($0.code): \($0.description)" } ?? "no reason given")
    }
}

/// The iteration counter the workers of one scenario claim from.
final class IterationCounter: Sendable {
    let value = Atomic<Int>(0)
}
