/// What one iteration did, returned by an operation and folded into its scenario's metrics.
///
/// Times are offsets from the start of the run (so the time series of concurrent scenarios line up).
public struct IterationSample: Sendable {
    /// The operation's index in the scenario's workload.
    public var operation: Int
    /// When the iteration was meant to start: its schedule slot in arrival-rate executors, else its actual start.
    public var intendedStart: Duration
    public var end: Duration
    /// Every HTTP request the iteration made (retries, pages, upload parts included).
    public var requests: [RequestSample] = []
    public var editsApplied = 0
    public var editsFailed = 0
    public var editsUnknown = 0
    /// Edits refused by client-side validation, never sent.
    public var editsInvalid = 0
    public var editsAppliedByEarlierAttempt = 0
    public var retries = 0
    public var backoff: Duration = .zero
    /// Failures, in words (an edit's ArcGIS error, a transport error).
    public var errors: [String] = []
    /// Object IDs and GlobalIDs this iteration added, and object IDs it deleted, for verification and id pools.
    public var addedObjectIds: [Int64] = []
    public var addedGlobalIds: [String] = []
    public var unknownGlobalIds: [String] = []
    public var deletedObjectIds: [Int64] = []
    /// Object IDs added to other layers than the operation's (a deep insert's children), by layer, for verification.
    public var addedToOtherLayers: [Int: [Int64]] = [:]

    public init(operation: Int, intendedStart: Duration, end: Duration = .zero) {
        self.operation = operation
        self.intendedStart = intendedStart
        self.end = end
    }

    /// Counts a failure.
    public mutating func fail(_ message: String) {
        errors.append(message)
    }

    /// Whether the iteration failed: a request or an edit failed, or it was refused before it sent anything for
    /// another reason than client-side validation (which refuses on purpose, and counts in `edits_invalid`).
    package var failed: Bool {
        editsFailed > 0 || requests.contains(where: \.failed) || (requests.isEmpty && editsApplied == 0 && editsInvalid == 0 && !errors.isEmpty)
    }
}

/// One HTTP request: status (0 when no response arrived), time, bytes, and whether it failed.
public struct RequestSample: Sendable, Hashable {
    /// The status of a request the end of its scenario cut off while it waited for its answer (gracefulStop,
    /// maxDuration, an aborting threshold or Ctrl-C): failed, tagged `status:interrupted`, its duration the time it
    /// had waited (a lower bound of what it would have taken).
    package static let interrupted = 0xFFFF

    /// The `status` tag of a request with `status`.
    package static func statusTag(_ status: Int) -> String {
        status == interrupted ? "interrupted" : String(status)
    }

    public var status: Int
    public var duration: Duration
    public var bytesSent: Int64
    public var bytesReceived: Int64
    /// No response, HTTP ≥ 400, or an ArcGIS error envelope.
    public var failed: Bool
    /// The service's own time for the request, from its `Server-Timing` header, when it sends one.
    public var serverDuration: Duration?

    public init(status: Int, duration: Duration, bytesSent: Int64 = 0, bytesReceived: Int64 = 0, failed: Bool, serverDuration: Duration? = nil) {
        self.status = status
        self.duration = duration
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.failed = failed
        self.serverDuration = serverDuration
    }
}
