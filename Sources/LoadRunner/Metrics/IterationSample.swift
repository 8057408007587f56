/// What one iteration did, returned by an operation and folded into its scenario's metrics.
///
/// Times are offsets from the start of the run (so the time series of concurrent scenarios line up).
package struct IterationSample: Sendable {
    /// The operation's index in the scenario's workload.
    package var operation: Int
    /// When the iteration was meant to start: its schedule slot in arrival-rate executors, else its actual start.
    package var intendedStart: Duration
    package var end: Duration
    /// Every HTTP request the iteration made (retries, pages, upload parts included).
    package var requests: [RequestSample] = []
    package var editsApplied = 0
    package var editsFailed = 0
    package var editsUnknown = 0
    /// Edits refused by client-side validation, never sent.
    package var editsInvalid = 0
    package var editsAppliedByEarlierAttempt = 0
    package var retries = 0
    package var backoff: Duration = .zero
    /// Failures, in words (an edit's ArcGIS error, a transport error).
    package var errors: [String] = []
    /// Object IDs and GlobalIDs this iteration added, and object IDs it deleted, for verification and id pools.
    package var addedObjectIds: [Int64] = []
    package var addedGlobalIds: [String] = []
    var unknownGlobalIds: [String] = []
    package var deletedObjectIds: [Int64] = []
    /// Object IDs added to other layers than the operation's (a deep insert's children), by layer, for verification.
    var addedToOtherLayers: [Int: [Int64]] = [:]

    package init(operation: Int, intendedStart: Duration, end: Duration = .zero) {
        self.operation = operation
        self.intendedStart = intendedStart
        self.end = end
    }

    /// Counts a failure.
    package mutating func fail(_ message: String) {
        errors.append(message)
    }

    /// Whether the iteration failed: a request or an edit failed, or it was refused before it sent anything for
    /// another reason than client-side validation (which refuses on purpose, and counts in `edits_invalid`).
    package var failed: Bool {
        editsFailed > 0 || requests.contains(where: \.failed) || (requests.isEmpty && editsApplied == 0 && editsInvalid == 0 && !errors.isEmpty)
    }
}

/// One HTTP request: status (0 when no response arrived), time, bytes, and whether it failed.
package struct RequestSample: Sendable, Hashable {
    /// The status of a request the end of its scenario cut off while it waited for its answer (gracefulStop,
    /// maxDuration, an aborting threshold or Ctrl-C): failed, tagged `status:interrupted`, its duration the time it
    /// had waited (a lower bound of what it would have taken).
    package static let interrupted = 0xFFFF

    /// The `status` tag of a request with `status`.
    static func statusTag(_ status: Int) -> String {
        status == interrupted ? "interrupted" : String(status)
    }

    package var status: Int
    package var duration: Duration
    package var bytesSent: Int64
    package var bytesReceived: Int64
    /// No response, HTTP ≥ 400, or an ArcGIS error envelope.
    package var failed: Bool
    /// The service's own time for the request, from its `Server-Timing` header, when it sends one.
    package var serverDuration: Duration?
    /// When it was sent, for the raw samples of `run --out csv=…` (nil where no transport recorded it).
    package var started: ContinuousClock.Instant?

    package init(
        status: Int, duration: Duration, bytesSent: Int64 = 0, bytesReceived: Int64 = 0, failed: Bool, serverDuration: Duration? = nil,
        started: ContinuousClock.Instant? = nil
    ) {
        self.status = status
        self.duration = duration
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.failed = failed
        self.serverDuration = serverDuration
        self.started = started
    }
}
