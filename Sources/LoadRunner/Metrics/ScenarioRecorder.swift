import FeatureModel
import Synchronization

/// Folds the iteration samples of one scenario into its metrics, from any number of VU tasks at once.
///
/// A `Mutex` guards one accumulator per scenario, so memory does not grow with the VU count and a progress display
/// can read a consistent snapshot at any time. Folding is a few dictionary updates; nothing per request is kept
/// except, when verification is on, the IDs of the features the run added and deleted.
package final class ScenarioRecorder: Sendable {
    package let scenario: String
    /// The workload's operation labels, by index.
    package let operations: [String]
    let state: Mutex<ScenarioAccumulator>
    private let inFlight = Atomic<Int>(0)
    /// Where every request also goes, one line each (`run --out csv=…`).
    let rawOutput: RawSampleWriter?
    /// The fixed parts of each operation's lines there (names and tags), formatted once; empty without it.
    let rawLabels: [RawSampleLabels]
    /// Where every iteration is also counted for a scrape while the run lasts (`run --metrics-listen`).
    let live: LiveScenarioMetrics?

    /// Iterations running now.
    var currentInFlight: Int { inFlight.load(ordering: .relaxed) }

    /// A recorder for `scenario`, whose operations have these labels and edit these layers (by index).
    package init(
        scenario: String, operations: [String], layers: [Int], keepIds: Bool, rawOutput: RawSampleWriter? = nil, tags: [String: String] = [:],
        live: LiveScenarioMetrics? = nil
    ) {
        self.scenario = scenario
        self.operations = operations
        self.rawOutput = rawOutput
        rawLabels = rawOutput == nil ? [] : operations.map { RawSampleLabels(scenario: scenario, operation: $0, tags: tags) }
        self.live = live
        state = Mutex(ScenarioAccumulator(layers: layers, keepIds: keepIds))
    }

    /// Notes an iteration starting (for the busy-VU gauge).
    package func iterationStarted() {
        let busy = inFlight.wrappingAdd(1, ordering: .relaxed).newValue
        live?.setBusy(busy)
    }

    /// Folds a finished iteration's sample.
    package func record(_ sample: IterationSample) {
        let busy = inFlight.wrappingSubtract(1, ordering: .relaxed).oldValue
        state.withLock { $0.fold(sample, busy: busy) }
        rawOutput?.append(RawSampleBatch(labels: rawLabels[sample.operation], sample: sample))
        if let live {
            live.record(sample)
            live.setBusy(busy - 1)
        }
    }

    /// Notes an iteration that was cancelled before it did anything (not counted).
    func iterationAbandoned() {
        let busy = inFlight.wrappingSubtract(1, ordering: .relaxed).newValue
        live?.setBusy(busy)
    }

    /// Counts an iteration the executor could not start (no free VU) at `offset` from the run's start.
    package func recordDropped(at offset: Duration) {
        state.withLock { $0.dropped(at: offset) }
        live?.recordDropped()
    }

    /// Records the VU pool's size (the `vus_max` gauge).
    func recordPoolSize(_ vus: Int) {
        state.withLock { $0.poolSize = max($0.poolSize, vus) }
    }

    /// What was recorded so far.
    package func snapshot() -> ScenarioAccumulator {
        state.withLock { $0 }
    }
}

/// The metrics of one scenario as they accumulate; a value, so snapshots are consistent copies.
package struct ScenarioAccumulator: Sendable {
    struct RequestStats: Sendable {
        var count = 0
        var failed = 0
        var duration = LatencyHistogram()
        var serverDuration = LatencyHistogram()
        var sent: Int64 = 0
        var received: Int64 = 0
    }

    package struct OperationStats: Sendable {
        package var iterations = 0
        /// Iterations in which a request or an edit failed, or that were refused before sending anything.
        var failedIterations = 0
        var iterationDuration = LatencyHistogram()
        package var editsApplied = 0
        package var editsFailed = 0
        package var editsUnknown = 0
        package var editsInvalid = 0
        package var editsAppliedByEarlierAttempt = 0
        package var retries = 0
        package var backoffSeconds = 0.0
        /// Failures by message (at most ``ScenarioAccumulator/maxErrorKinds`` kinds; the rest under "other errors").
        package var errors: [String: Int] = [:]
    }

    static let maxErrorKinds = 50

    /// Keyed by operation index << 16 | HTTP status.
    var requests: [Int: RequestStats] = [:]
    package private(set) var operations: [OperationStats]
    package private(set) var droppedIterations = 0
    var poolSize = 0
    private(set) var peakBusy = 0
    /// Keyed by second << 16 | operation index.
    var buckets: [Int: TimeBucketCounts] = [:]
    /// Buckets whose latency is still a full histogram (tens of KiB each); older ones are sealed into the sparse
    /// pairs a report stores (usually well under 1 KiB), so memory does not grow with the run's length.
    var liveBuckets: Set<Int> = []
    var newestSecond = 0
    let keepIds: Bool
    /// The layer of each operation.
    let layers: [Int]
    /// What the run added and deleted, by layer, when verification is on.
    package private(set) var ids: [Int: LayerIds] = [:]

    /// Features a scenario added to and deleted from one layer.
    package struct LayerIds: Sendable {
        package var addedObjectIds: [Int64] = []
        package var addedGlobalIds: [String] = []
        var unknownGlobalIds: [String] = []
        package var deletedObjectIds: [Int64] = []
    }
    /// When the first iteration started and the last ended, as offsets from the run's start.
    private(set) var firstStart: Duration?
    private(set) var lastEnd: Duration?

    init(layers: [Int], keepIds: Bool) {
        operations = Array(repeating: OperationStats(), count: layers.count)
        self.layers = layers
        self.keepIds = keepIds
    }

    struct TimeBucketCounts: Sendable {
        var requests = 0
        var failedRequests = 0
        var iterations = 0
        var edits = 0
        var editsFailed = 0
        var dropped = 0
        var busy = 0
        var latency = LatencyHistogram(significantDigits: 2)
        /// The latency in its sparse form once sealed (``latency`` is then an empty placeholder, unless a late
        /// sample reopened it).
        var sealedLatency: SparseLatency?

        /// Moves the latency into its sparse form (merging a reopened live part in).
        mutating func seal() {
            if var sealed = sealedLatency {
                guard latency.count > 0 else { return }
                sealed.merge(SparseLatency(latency))
                sealedLatency = sealed
            } else {
                sealedLatency = SparseLatency(latency)
            }
            latency = LatencyHistogram(significantDigits: 0)
        }

        /// The latency in the form a report keeps, whether live or sealed.
        var sparseLatency: SparseLatency {
            guard var sealed = sealedLatency else { return SparseLatency(latency) }
            if latency.count > 0 { sealed.merge(SparseLatency(latency)) }
            return sealed
        }
    }

    mutating func fold(_ sample: IterationSample, busy: Int) {
        let op = sample.operation
        peakBusy = max(peakBusy, busy)
        firstStart = min(firstStart ?? sample.intendedStart, sample.intendedStart)
        lastEnd = max(lastEnd ?? sample.end, sample.end)
        let second = max(0, Int(sample.end.components.seconds))
        if second > newestSecond {
            newestSecond = second
            // Iterations end within a second or two of each other's folding: seal what is older than that.
            for key in liveBuckets where key >> 16 < second - 2 {
                buckets[key]?.seal()
                liveBuckets.remove(key)
            }
        }
        let bucketKey = second << 16 | op
        liveBuckets.insert(bucketKey)
        // In place (the dictionary's modify accessor): a copy would duplicate the bucket's histogram per sample.
        Self.fold(sample, busy: busy, into: &buckets[bucketKey, default: TimeBucketCounts()])
        for request in sample.requests {
            Self.fold(request, into: &requests[op << 16 | (request.status & 0xFFFF), default: RequestStats()])
        }

        operations[op].iterations += 1
        if sample.failed { operations[op].failedIterations += 1 }
        operations[op].iterationDuration.record(sample.end - sample.intendedStart)
        operations[op].editsApplied += sample.editsApplied
        operations[op].editsFailed += sample.editsFailed
        operations[op].editsUnknown += sample.editsUnknown
        operations[op].editsInvalid += sample.editsInvalid
        operations[op].editsAppliedByEarlierAttempt += sample.editsAppliedByEarlierAttempt
        operations[op].retries += sample.retries
        operations[op].backoffSeconds += sample.backoff.seconds
        for message in sample.errors {
            let key = Self.errorKind(message)
            if operations[op].errors[key] != nil || operations[op].errors.count < Self.maxErrorKinds {
                operations[op].errors[key, default: 0] += 1
            } else {
                operations[op].errors["other errors", default: 0] += 1
            }
        }
        if keepIds {
            for (layer, objectIds) in sample.addedToOtherLayers {
                ids[layer, default: LayerIds()].addedObjectIds.append(contentsOf: objectIds)
            }
        }
        if keepIds
            && !(sample.addedObjectIds.isEmpty && sample.deletedObjectIds.isEmpty && sample.unknownGlobalIds.isEmpty)
        {
            let layer = layers[op]
            ids[layer, default: LayerIds()].addedObjectIds.append(contentsOf: sample.addedObjectIds)
            ids[layer]!.addedGlobalIds.append(contentsOf: sample.addedGlobalIds)
            ids[layer]!.unknownGlobalIds.append(contentsOf: sample.unknownGlobalIds)
            ids[layer]!.deletedObjectIds.append(contentsOf: sample.deletedObjectIds)
        }
    }

    /// A failure message as an error kind: each URL shortened to its host and last three path components (no query
    /// string), so the server's reason and the advice are kept whole; a message still over 400 characters is cut in
    /// the middle, keeping the start and the end (a transport error's curl code and advice).
    static func errorKind(_ message: String) -> String {
        let shortened = message.replacing(/https?:\/\/[^\s()\]\[]+/) { match in shortURL(String(match.output)) }
        guard shortened.count > 400 else { return shortened }
        return String(shortened.prefix(160)) + "…" + String(shortened.suffix(239))
    }

    /// `url` as `scheme://host[:port]/…/last/three/components`, without its query string or fragment.
    static func shortURL(_ url: String) -> String {
        let withoutQuery = url.prefix { $0 != "?" && $0 != "#" }
        guard let schemeEnd = withoutQuery.firstRange(of: "://") else { return String(withoutQuery) }
        let afterScheme = withoutQuery[schemeEnd.upperBound...]
        let components = afterScheme.split(separator: "/", omittingEmptySubsequences: false)
        guard components.count > 5 else { return String(withoutQuery) }
        let host = withoutQuery[..<schemeEnd.upperBound] + components[0]
        return host + "/…/" + components.suffix(3).joined(separator: "/")
    }

    private static func fold(_ sample: IterationSample, busy: Int, into bucket: inout TimeBucketCounts) {
        if bucket.sealedLatency != nil && bucket.latency.significantDigits != 2 {
            // A late sample for a sealed second: it gets a live histogram again, merged with the sealed pairs later.
            bucket.latency = LatencyHistogram(significantDigits: 2)
        }
        bucket.busy = max(bucket.busy, busy)
        for request in sample.requests {
            bucket.requests += 1
            bucket.failedRequests += request.failed ? 1 : 0
            bucket.latency.record(request.duration)
        }
        bucket.iterations += 1
        bucket.edits += sample.editsApplied
        bucket.editsFailed += sample.editsFailed
    }

    private static func fold(_ request: RequestSample, into stats: inout RequestStats) {
        stats.count += 1
        stats.failed += request.failed ? 1 : 0
        stats.duration.record(request.duration)
        if let server = request.serverDuration { stats.serverDuration.record(server) }
        stats.sent += request.bytesSent
        stats.received += request.bytesReceived
    }

    mutating func dropped(at offset: Duration) {
        droppedIterations += 1
        let second = max(0, Int(offset.components.seconds))
        buckets[second << 16 | 0, default: TimeBucketCounts()].dropped += 1
        // Sealed with the rest once the run moves on, or its empty live histogram would stay for the whole run.
        liveBuckets.insert(second << 16 | 0)
    }

    /// Totals over every operation.
    package var totals: OperationStats {
        operations.reduce(into: OperationStats()) { total, op in
            total.iterations += op.iterations
            total.failedIterations += op.failedIterations
            total.iterationDuration.merge(op.iterationDuration)
            total.editsApplied += op.editsApplied
            total.editsFailed += op.editsFailed
            total.editsUnknown += op.editsUnknown
            total.editsInvalid += op.editsInvalid
            total.editsAppliedByEarlierAttempt += op.editsAppliedByEarlierAttempt
            total.retries += op.retries
            total.backoffSeconds += op.backoffSeconds
            total.errors.merge(op.errors, uniquingKeysWith: +)
        }
    }

    /// Requests, failed requests and their latency, over every operation and status.
    var requestTotals: (count: Int, failed: Int, duration: LatencyHistogram) {
        var duration = LatencyHistogram()
        var count = 0
        var failed = 0
        for stats in requests.values {
            count += stats.count
            failed += stats.failed
            duration.merge(stats.duration)
        }
        return (count, failed, duration)
    }

    /// The metric series, tagged with the scenario, operation labels, statuses and the scenario's own tags.
    package func series(scenario: String, operations labels: [String], tags: [String: String]) -> [MetricSeries] {
        func tagged(_ extra: [String: String]) -> [String: String] {
            tags.merging(extra) { _, new in new }
        }
        var result: [MetricSeries] = []
        for (key, stats) in requests.sorted(by: { $0.key < $1.key }) {
            let t = tagged(["scenario": scenario, "operation": labels[key >> 16], "status": RequestSample.statusTag(key & 0xFFFF)])
            var reqs = MetricSeries(metric: .httpReqs, tags: t)
            reqs.count = Double(stats.count)
            var failed = MetricSeries(metric: .httpReqFailed, tags: t)
            failed.count = Double(stats.count)
            failed.passes = Double(stats.failed)
            var duration = MetricSeries(metric: .httpReqDuration, tags: t)
            duration.histogram = stats.duration
            duration.count = Double(stats.duration.count)
            var sent = MetricSeries(metric: .dataSent, tags: t)
            sent.count = Double(stats.sent)
            var received = MetricSeries(metric: .dataReceived, tags: t)
            received.count = Double(stats.received)
            result += [reqs, duration, failed, sent, received]
            if stats.serverDuration.count > 0 {
                var server = MetricSeries(metric: .serverDuration, tags: t)
                server.histogram = stats.serverDuration
                server.count = Double(stats.serverDuration.count)
                result.append(server)
            }
        }
        for (index, op) in operations.enumerated() {
            let t = tagged(["scenario": scenario, "operation": labels[index]])
            var iterations = MetricSeries(metric: .iterations, tags: t)
            iterations.count = Double(op.iterations)
            var iterationFailed = MetricSeries(metric: .iterationFailed, tags: t)
            iterationFailed.count = Double(op.iterations)
            iterationFailed.passes = Double(op.failedIterations)
            result.append(iterationFailed)
            var duration = MetricSeries(metric: .iterationDuration, tags: t)
            duration.histogram = op.iterationDuration
            duration.count = Double(op.iterationDuration.count)
            var edits = MetricSeries(metric: .edits, tags: t)
            edits.count = Double(op.editsApplied)
            var failed = MetricSeries(metric: .editFailed, tags: t)
            failed.count = Double(op.editsApplied + op.editsFailed)
            failed.passes = Double(op.editsFailed)
            var unknown = MetricSeries(metric: .editOutcomeUnknown, tags: t)
            unknown.count = Double(op.editsUnknown)
            var retries = MetricSeries(metric: .retries, tags: t)
            retries.count = Double(op.retries)
            var invalid = MetricSeries(metric: .editsInvalid, tags: t)
            invalid.count = Double(op.editsInvalid)
            result += [iterations, duration, edits, failed, unknown, invalid, retries]
        }
        let t = tagged(["scenario": scenario])
        var dropped = MetricSeries(metric: .droppedIterations, tags: t)
        dropped.count = Double(droppedIterations)
        var vus = MetricSeries(metric: .vus, tags: t)
        vus.count = 1
        vus.value = Double(peakBusy)
        vus.max = Double(peakBusy)
        vus.min = 0
        var vusMax = MetricSeries(metric: .vusMax, tags: t)
        vusMax.count = 1
        vusMax.value = Double(poolSize)
        vusMax.max = Double(poolSize)
        vusMax.min = Double(poolSize)
        result += [dropped, vus, vusMax]
        return result
    }

    /// The per-second buckets, in time order.
    package func timeSeries(scenario: String, operations labels: [String]) -> [TimeBucket] {
        buckets.sorted { $0.key < $1.key }.map { key, counts in
            var bucket = TimeBucket(second: key >> 16, scenario: scenario, operation: labels[key & 0xFFFF])
            bucket.requests = counts.requests
            bucket.failedRequests = counts.failedRequests
            bucket.iterations = counts.iterations
            bucket.edits = counts.edits
            bucket.editsFailed = counts.editsFailed
            bucket.droppedIterations = counts.dropped
            bucket.busyVUs = counts.busy
            bucket.latency = counts.sparseLatency
            return bucket
        }
    }
}
