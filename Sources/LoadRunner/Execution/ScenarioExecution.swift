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
        let options = ApplyEditsOptions(rollbackOnFailure: spec.rollbackOnFailure)
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
                let edits = LayerEdits(adds: generator.features(from: first, count: spec.batchSize))
                let begin = clock.now
                do {
                    let answer = try await layer.applyEdits(edits, options: options)
                    result.metrics.latency.record(begin.duration(to: clock.now))
                    result.metrics.requests += 1
                    result.metrics.editsSent += spec.batchSize
                    for add in answer.addResults {
                        if add.success, let objectId = add.objectId {
                            result.metrics.editsSucceeded += 1
                            result.objectIds.append(objectId)
                        } else {
                            result.metrics.editsFailed += 1
                            result.metrics.recordError(
                                "edit failed: " + (add.error.map { "code \($0.code): \($0.description)" } ?? "no reason given"))
                        }
                    }
                    let missing = spec.batchSize - answer.addResults.count
                    if missing > 0 {
                        result.metrics.editsFailed += missing
                        result.metrics.recordError("the service answered for \(answer.addResults.count) of \(spec.batchSize) adds")
                    }
                } catch {
                    result.metrics.latency.record(begin.duration(to: clock.now))
                    if Task.isCancelled {
                        result.stopReason = .cancelled
                        return result
                    }
                    result.metrics.requests += 1
                    result.metrics.failedRequests += 1
                    result.metrics.editsSent += spec.batchSize
                    result.metrics.editsFailed += spec.batchSize
                    result.metrics.recordError(String(describing: error))
                }
            }
        }
    }
}

/// The iteration counter the workers of one scenario claim from.
final class IterationCounter: Sendable {
    let value = Atomic<Int>(0)
}
