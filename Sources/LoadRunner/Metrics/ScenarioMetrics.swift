/// Counters and latencies of one scenario (or one worker of it); merges exactly.
public struct ScenarioMetrics: Sendable, Codable, Equatable {
    /// Requests sent (each iteration is one request).
    public var requests: Int = 0
    /// Requests that failed as a whole: transport failures, HTTP errors, ArcGIS error bodies.
    public var failedRequests: Int = 0
    /// Edits sent in all requests.
    public var editsSent: Int = 0
    /// Edits the service reported as applied.
    public var editsSucceeded: Int = 0
    /// Edits the service reported as failed, or that were in failed requests.
    public var editsFailed: Int = 0
    /// Edits whose outcome is unknown: a request failed after it may have reached the service, and the edit could
    /// not be checked (adds without client GlobalIDs). Also counted in ``editsFailed``.
    public var editsUnknown: Int = 0
    /// Edits a retry found already applied by an earlier attempt (counted once, in ``editsSucceeded``).
    public var editsAppliedByEarlierAttempt: Int = 0
    /// HTTP attempts, retries and checks included.
    public var attempts: Int = 0
    /// Attempts beyond the first of each request.
    public var retries: Int = 0
    /// Time spent sleeping between attempts, in seconds.
    public var backoffSeconds: Double = 0
    /// Latency of every request, from its start to its decoded answer (retries and backoff included).
    public var latency = LatencyHistogram()
    /// Failures by kind and message, counted.
    public var errors: [String: Int] = [:]

    public init() {}

    /// Adds `other`'s counts and latencies to these.
    public mutating func merge(_ other: ScenarioMetrics) {
        requests += other.requests
        failedRequests += other.failedRequests
        editsSent += other.editsSent
        editsSucceeded += other.editsSucceeded
        editsFailed += other.editsFailed
        editsUnknown += other.editsUnknown
        editsAppliedByEarlierAttempt += other.editsAppliedByEarlierAttempt
        attempts += other.attempts
        retries += other.retries
        backoffSeconds += other.backoffSeconds
        latency.merge(other.latency)
        errors.merge(other.errors, uniquingKeysWith: +)
    }

    /// Counts one failure under a short description.
    mutating func recordError(_ description: String) {
        let key = description.count > 200 ? String(description.prefix(200)) + "…" : description
        errors[key, default: 0] += 1
    }
}
