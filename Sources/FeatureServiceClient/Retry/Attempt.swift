/// One HTTP exchange the client made for an operation: the first try, each retry, each replay after a token
/// refresh, and each query sent to find out whether an edit was already applied.
///
/// Returned with every result and every thrown ``FeatureServiceError`` (``FeatureServiceError/attempts``), so a
/// load test counts retries and backoff instead of hiding them in latency.
public struct Attempt: Sendable, Hashable {
    /// Why the exchange was made.
    public enum Purpose: String, Sendable, Hashable {
        /// The operation itself (first try, retry or replay).
        case request
        /// A query asking the service whether an edit was already applied, or for the objectIds of adds that were.
        case verification
    }

    /// 1-based position among the operation's attempts.
    public var number: Int
    /// What the exchange was for.
    public var purpose: Purpose
    /// When it started, measured on the client's clock from the start of the operation.
    public var startedAt: Duration
    /// How long it took, measured on the client's clock (response or failure).
    public var duration: Duration
    /// The HTTP status, when a response arrived.
    public var status: Int?
    /// Why it failed; `nil` when it succeeded.
    public var failure: AttemptFailure?
    /// libcurl's measurements, when a response arrived over a measuring transport.
    package var timing: TransferTiming?
    /// The time slept after this attempt before the next one (zero for the last, and for a replay after a token refresh).
    public var backoff: Duration
    /// Whether the token was refreshed after this attempt (it answered 498) and the request replayed.
    public var refreshedToken: Bool

    /// An attempt record; the client fills them, fakes may too.
    package init(
        number: Int, purpose: Purpose = .request, startedAt: Duration = .zero, duration: Duration = .zero, status: Int? = nil,
        failure: AttemptFailure? = nil, timing: TransferTiming? = nil, backoff: Duration = .zero, refreshedToken: Bool = false
    ) {
        self.number = number
        self.purpose = purpose
        self.startedAt = startedAt
        self.duration = duration
        self.status = status
        self.failure = failure
        self.timing = timing
        self.backoff = backoff
        self.refreshedToken = refreshedToken
    }

    /// Whether the exchange succeeded.
    public var succeeded: Bool { failure == nil }
}

extension Array where Element == Attempt {
    /// Attempts of purpose ``Attempt/Purpose/request`` beyond the first: the retries and replays.
    public var retryCount: Int { Swift.max(0, filter { $0.purpose == .request }.count - 1) }

    /// The total time slept between attempts.
    public var totalBackoff: Duration { reduce(.zero) { $0 + $1.backoff } }

    /// A short account such as "3 attempts (2 retries after HTTP 503, timed out; 1.20 s backoff)", for messages.
    var summary: String {
        let failures = compactMap { $0.purpose == .request ? $0.failure?.description : nil }
        var text = "\(count) attempt\(count == 1 ? "" : "s")"
        if !failures.isEmpty {
            text += " (failures: " + failures.joined(separator: ", ") + "; \(totalBackoff.formattedSeconds) backoff)"
        }
        return text
    }
}
