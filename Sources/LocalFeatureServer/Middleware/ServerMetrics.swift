package import CoreMetrics
import Synchronization

/// The service's own view of its load, through swift-metrics (`serve --metrics-listen`): requests and their durations
/// by operation and status, and the faults injected by operation and kind.
///
/// Operation labels come from a bounded vocabulary (``operation(of:)``), so a scan of odd paths cannot grow the
/// series without end. Handles are made once per label set and cached; thread-safe.
package final class ServerMetrics: Sendable {
    package static let requests = "featureload_server_requests_total"
    static let requestDuration = "featureload_server_request_duration_seconds"
    static let faultsInjected = "featureload_server_faults_injected_total"
    /// Label sets kept apart at most; requests beyond fall under operation `other`.
    static let maximumSeries = 500

    private struct RequestMetrics: Sendable {
        let count: CoreMetrics.Counter
        let duration: CoreMetrics.Timer
    }

    private let factory: any MetricsFactory
    private let requestMetrics = Mutex<[String: RequestMetrics]>([:])
    private let faultCounters = Mutex<[String: CoreMetrics.Counter]>([:])

    /// Metrics made by `factory`.
    package init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// Counts one answered request to `operation` with `status`, which took `duration`.
    func record(operation: String, status: Int, duration: Duration) {
        let metrics = requestMetrics.withLock { cache in
            let key = "\(operation) \(status)"
            if let known = cache[key] { return known }
            let dimensions = [("operation", cache.count < Self.maximumSeries ? operation : "other"), ("status", String(status))]
            let made = RequestMetrics(
                count: CoreMetrics.Counter(label: Self.requests, dimensions: dimensions, factory: factory),
                duration: CoreMetrics.Timer(label: Self.requestDuration, dimensions: dimensions, factory: factory))
            cache[key] = made
            return made
        }
        metrics.count.increment()
        let (seconds, attoseconds) = duration.components
        metrics.duration.recordNanoseconds(max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }

    /// Counts `amount` faults of `kind` injected into requests to `operation`.
    func countFault(_ kind: String, operation: String, amount: Int = 1) {
        guard amount > 0 else { return }
        let counter = faultCounters.withLock { cache in
            let key = "\(operation) \(kind)"
            if let known = cache[key] { return known }
            let made = CoreMetrics.Counter(label: Self.faultsInjected, dimensions: [("operation", operation), ("fault", kind)], factory: factory)
            cache[key] = made
            return made
        }
        counter.increment(by: amount)
    }

    /// The operation label of a request to `path`: the last path segment as written (`applyEdits`, `query`), `layer`
    /// for `…/FeatureServer/<id>`, `service` for `…/FeatureServer`, `attachment` for a numeric segment after
    /// `attachments`, and `other` for anything that is not a plain word of at most 40 letters.
    static func operation(of path: String) -> String {
        let generic = FaultDecider.operation(of: path)
        if generic == "service" || generic == "layer" { return generic }
        let segments = path.split(separator: "/")
        guard let last = segments.last else { return "root" }
        if last.allSatisfy(\.isNumber), segments.count >= 2, segments[segments.count - 2].lowercased() == "attachments" { return "attachment" }
        guard last.count <= 40, last.allSatisfy({ $0.isASCII && $0.isLetter }) else { return "other" }
        return String(last)
    }
}
