import FeatureModel
import FeatureServiceClient

/// One kind of iteration: what a VU does each time its executor starts it.
///
/// An operation is a Sendable value made once per scenario. ``perform(index:sample:)`` is called concurrently by
/// many VUs; it fills in edits, errors and IDs, while the HTTP requests it makes are measured by the
/// ``RecordingTransport`` under the calling VU's ``RequestLog``.
protocol LoadOperation: Sendable {
    /// Carries out iteration `index` (unique across the run, so payloads differ).
    nonisolated(nonsending) func perform(index: Int, sample: inout IterationSample) async
}

/// What operations share: the service, the table they work on, payloads, existing IDs, retries.
struct OperationEnvironment: Sendable {
    package let service: FeatureService
    package let table: ServiceFeatureTable
    package let generator: FeatureGenerator
    package let pool: IdPool
    /// The scenario's retry policy; nil sends each request once.
    package let retry: RetryPolicy?
    /// Random per run, mixed into client GlobalIDs so a rerun with the same seed never collides with the last one.
    let runNonce: UInt64
    /// Generated attachment files, smallest first.
    let attachmentFiles: [String]
    /// The metadata of every layer and table of the service.
    package let layers: [Int: LayerInfo]
    /// Existing object IDs of the related table, for operations that work on both sides of a relationship.
    let partnerPool: IdPool?
    /// Shapes adds to the layer's contingent values (and breaks `invalidRate` of them), when the layer has any or the
    /// operation breaks adds on purpose.
    package let shaper: ValidityShaper?

    package init(
        service: FeatureService, table: ServiceFeatureTable, generator: FeatureGenerator, pool: IdPool, retry: RetryPolicy?, runNonce: UInt64,
        attachmentFiles: [String] = [], layers: [Int: LayerInfo] = [:], partnerPool: IdPool? = nil, shaper: ValidityShaper? = nil
    ) {
        self.shaper = shaper
        self.service = service
        self.table = table
        self.generator = generator
        self.pool = pool
        self.retry = retry
        self.runNonce = runNonce
        self.attachmentFiles = attachmentFiles
        self.layers = layers
        self.partnerPool = partnerPool
    }

    /// The table on the other side of `relationship` from `layer`, when the service lists it.
    func relatedTable(of layer: Int, relationship: Int) -> Int? {
        layers[layer]?.relationships?.first { $0.id == relationship }?.relatedTableId
    }

    var layer: FeatureLayerClient { table.client }
    var info: LayerInfo { table.info }
}

extension IterationSample {
    /// Records an error thrown by the client: its description, and edits that may have been applied.
    mutating func fail(_ error: any Error, edits: Int) {
        editsFailed += edits
        if let failure = error as? FeatureServiceError {
            retries += failure.attempts.retryCount
            backoff += failure.attempts.totalBackoff
            if failure.mayHaveBeenApplied { editsUnknown += edits }
        }
        fail(String(describing: error))
    }

    /// Counts the `edits` of a request that the end of the scenario cut off while it waited for its answer: failed,
    /// with an unknown outcome (the service may still apply them), their client GlobalIDs (if any) left for
    /// verification to resolve.
    mutating func cutOff(edits: Int, globalIds: [String] = []) {
        guard edits > 0 else { return }
        editsFailed += edits
        editsUnknown += edits
        unknownGlobalIds += globalIds
        fail("cut off by the end of the scenario while waiting for the service: outcome unknown")
    }

    /// Records a per-edit failure reported by the service.
    mutating func fail(_ error: EditError?) {
        editsFailed += 1
        fail("edit failed: " + (error.map { "code \($0.code): \($0.description)" } ?? "no reason given"))
    }
}
