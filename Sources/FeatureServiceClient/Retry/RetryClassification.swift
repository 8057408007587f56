/// Which failures a repeat can fix: the classification table of the retry loop.
///
/// | failure | class |
/// |---|---|
/// | connection refused, host not resolved (nothing sent) | retryable: ``Cause/connectionFailure`` |
/// | connection dropped mid-request, empty reply | retryable: ``Cause/connectionDropped`` |
/// | connect or total timeout; HTTP 408 | retryable: ``Cause/timeout`` |
/// | HTTP 429, or an ArcGIS error body with code 429 | retryable: ``Cause/throttled`` |
/// | HTTP 502, 503, 504, or an ArcGIS error body with those codes (also at HTTP 200) | retryable: ``Cause/unavailable`` |
/// | HTTP 400 and other 4xx; ArcGIS 400 (validation, rolled-back batch), 403, 404, 498, 499 | not retryable |
/// | HTTP 500 and other 5xx | not retryable (the service failed; repeating would hide a bug) |
/// | an undecodable 2xx answer, an invalid request, a transport shut down, TLS and other libcurl failures | not retryable |
/// | per-edit failures (`success: false` items) | not failures of the attempt: never retried |
///
/// Token errors (498) are handled before this table: one refresh, then one replay (see ``TokenProvider``).
/// Whether a retryable failure is also *ambiguous* for edits is ``AttemptFailure/mayHaveBeenApplied``.
package enum RetryClassification: Sendable, Hashable {
    /// A repeat may succeed, for this reason.
    case retryable(Cause)
    /// A repeat would fail the same way.
    case permanent

    /// Why a failure is retryable.
    package enum Cause: String, Sendable, Hashable, CaseIterable {
        /// No connection could be made.
        case connectionFailure
        /// The connection broke while the request was under way.
        case connectionDropped
        /// A connect or total timeout, or HTTP 408.
        case timeout
        /// HTTP or ArcGIS 429: the service asks for a lower rate.
        case throttled
        /// HTTP or ArcGIS 502, 503 or 504: the service or a gateway in front of it is unavailable.
        case unavailable
    }

    /// The class of `failure`, by the table above.
    package static func classify(_ failure: AttemptFailure) -> RetryClassification {
        switch failure {
        case .transport(let kind, _):
            switch kind {
            case .couldNotConnect, .couldNotResolveHost: return .retryable(.connectionFailure)
            case .sendFailed, .receiveFailed, .emptyReply: return .retryable(.connectionDropped)
            case .timedOut: return .retryable(.timeout)
            default: return .permanent
            }
        case .httpStatus(let status):
            return classify(status: status)
        case .arcgis(let code, let httpStatus):
            if case .retryable(let cause) = classify(status: code) { return .retryable(cause) }
            // A gateway may wrap its 503 in an ArcGIS-looking body whose code says less than the status.
            return httpStatus == 200 ? .permanent : classify(status: httpStatus)
        case .undecodable, .invalidRequest:
            return .permanent
        }
    }

    private static func classify(status: Int) -> RetryClassification {
        switch status {
        case 408: .retryable(.timeout)
        case 429: .retryable(.throttled)
        case 502, 503, 504: .retryable(.unavailable)
        default: .permanent
        }
    }
}
