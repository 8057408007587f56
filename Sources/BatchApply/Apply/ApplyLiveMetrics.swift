package import CoreMetrics
import Synchronization

/// Counts what `featureload apply` does through swift-metrics as each batch is answered (`apply --metrics-listen`),
/// under the names a run uses (`featureload_http_reqs_total`, `featureload_edits_total`, …), labelled `run_id`,
/// `operation` (`applyEdits`) and `layer`.
///
/// A batch's answer carries its request and retry counts, not each request's status or duration, so the requests
/// have no `status` label and there is no duration histogram. Handles are cached per layer; thread-safe.
package final class ApplyLiveMetrics: Sendable {
    struct LayerMetrics: Sendable {
        let requests: CoreMetrics.Counter
        let edits: CoreMetrics.Counter
        let editFailed: CoreMetrics.Counter
        let editOutcomeUnknown: CoreMetrics.Counter
        let retries: CoreMetrics.Counter
        let batches: CoreMetrics.Counter
    }

    private let factory: any MetricsFactory
    private let runId: String
    private let layers = Mutex<[Int: LayerMetrics]>([:])

    /// Metrics made by `factory`, labelled with `runId`.
    package init(factory: any MetricsFactory, runId: String) {
        self.factory = factory
        self.runId = runId
    }

    /// Counts one answered batch: its requests and retries, and its edits by outcome.
    func record(_ result: BatchApplier.BatchResult) {
        let metrics = self.metrics(layer: result.layer)
        var applied = 0
        var failed = 0
        var unknown = 0
        for record in result.records {
            switch record.status {
            case .applied: applied += 1
            case .rejected, .failed: failed += 1
            case .unknown: unknown += 1
            case .pending: break
            }
        }
        metrics.batches.increment()
        if result.requests > 0 { metrics.requests.increment(by: result.requests) }
        if result.retries > 0 { metrics.retries.increment(by: result.retries) }
        if applied > 0 { metrics.edits.increment(by: applied) }
        if failed > 0 { metrics.editFailed.increment(by: failed) }
        if unknown > 0 { metrics.editOutcomeUnknown.increment(by: unknown) }
    }

    private func metrics(layer: Int) -> LayerMetrics {
        layers.withLock { cache in
            if let known = cache[layer] { return known }
            let dimensions = [("run_id", runId), ("operation", "applyEdits"), ("layer", String(layer))]
            let made = LayerMetrics(
                requests: CoreMetrics.Counter(label: "featureload_http_reqs_total", dimensions: dimensions, factory: factory),
                edits: CoreMetrics.Counter(label: "featureload_edits_total", dimensions: dimensions, factory: factory),
                editFailed: CoreMetrics.Counter(label: "featureload_edit_failed_total", dimensions: dimensions, factory: factory),
                editOutcomeUnknown: CoreMetrics.Counter(label: "featureload_edit_outcome_unknown_total", dimensions: dimensions, factory: factory),
                retries: CoreMetrics.Counter(label: "featureload_retries_total", dimensions: dimensions, factory: factory),
                batches: CoreMetrics.Counter(label: "featureload_apply_batches_total", dimensions: dimensions, factory: factory))
            cache[layer] = made
            return made
        }
    }
}
