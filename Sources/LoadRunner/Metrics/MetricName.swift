/// The kinds of metric, as in k6: how values combine and which threshold aggregations apply.
package enum MetricKind: String, Sendable, Codable, Hashable {
    /// A sum (`count`, and `rate` = count per second of the run).
    case counter
    /// The share of non-zero values (`rate`).
    case rate
    /// A distribution (`avg`, `min`, `max`, `med`, `p(N)`), kept as an HDR histogram in microseconds.
    case trend
    /// A level sampled over time (`value`, the last; `min`, `max`).
    case gauge

    /// The aggregations a threshold may use on a metric of this kind.
    package var aggregations: [String] {
        switch self {
        case .counter: return ["count", "rate"]
        case .rate: return ["rate"]
        case .trend: return ["avg", "min", "max", "med", "p(N)"]
        case .gauge: return ["value", "min", "max"]
        }
    }
}

/// The metrics a run records: k6's built-in names where k6 has one, ours for the feature-service domain.
package enum MetricName: String, Sendable, Codable, Hashable, CaseIterable {
    /// HTTP requests sent (counter).
    case httpReqs = "http_reqs"
    /// Time from sending a request to its last response byte, per HTTP request (trend, ms).
    case httpReqDuration = "http_req_duration"
    /// The service's own time per request, from its `Server-Timing` header (trend, ms); only services that send
    /// the header (the embedded one does) have it. Beyond it, `http_req_duration` is the network and the generator.
    case serverDuration = "server_duration"
    /// Requests that failed: no response, HTTP status ≥ 400, or an ArcGIS error body (rate).
    case httpReqFailed = "http_req_failed"
    /// Iterations completed (counter).
    case iterations
    /// Iterations that failed, per iteration (rate): a request or an edit failed, or the iteration was refused before
    /// it could send anything (no existing feature to update, say). Edits refused by client-side validation on
    /// purpose (`invalidRate`, relationship rules) do not make an iteration fail.
    case iterationFailed = "iteration_failed"
    /// Time of a whole iteration, retries and backoff included; from its intended start in arrival-rate executors
    /// (trend, ms).
    case iterationDuration = "iteration_duration"
    /// Iterations an arrival-rate executor could not start because no VU was free (counter).
    case droppedIterations = "dropped_iterations"
    /// Request bytes sent (counter).
    case dataSent = "data_sent"
    /// Response bytes received (counter).
    case dataReceived = "data_received"
    /// Edits the service applied: adds, updates, deletes, relates, attachments (counter).
    case edits
    /// Edits that failed, per edit sent (rate).
    case editFailed = "edit_failed"
    /// Edits refused by client-side validation and never sent, as the ArcGIS Maps SDKs refuse them: a domain, a
    /// restrictive contingent value, a relationship's cardinality or orphan rule (counter).
    case editsInvalid = "edits_invalid"
    /// Edits whose outcome is unknown: the request broke after it may have been applied (counter).
    case editOutcomeUnknown = "edit_outcome_unknown"
    /// HTTP attempts beyond the first of each request (counter).
    case retries
    /// VUs busy at once, sampled each second (gauge).
    case vus
    /// The size of the VU pool (gauge).
    case vusMax = "vus_max"

    package var kind: MetricKind {
        switch self {
        case .httpReqs, .iterations, .droppedIterations, .dataSent, .dataReceived, .edits, .editsInvalid, .editOutcomeUnknown, .retries:
            return .counter
        case .httpReqFailed, .editFailed, .iterationFailed: return .rate
        case .httpReqDuration, .serverDuration, .iterationDuration: return .trend
        case .vus, .vusMax: return .gauge
        }
    }

    /// The tags a sample of this metric carries, so a threshold's tag filter can be checked before a run.
    package var tags: [String] {
        switch self {
        case .httpReqs, .httpReqDuration, .serverDuration, .httpReqFailed, .dataSent, .dataReceived: return ["scenario", "operation", "status"]
        case .iterations, .iterationFailed, .iterationDuration, .edits, .editsInvalid, .editFailed, .editOutcomeUnknown, .retries:
            return ["scenario", "operation"]
        case .droppedIterations, .vus, .vusMax: return ["scenario"]
        }
    }
}
