import FeatureModel

/// What to do to one request: a delay, at most one request-level fault, and per-edit failures for edit operations.
struct FaultDecision: Sendable, Hashable {
    /// Added before anything else happens.
    var latency: Duration = .zero
    /// The request-level fault, if one fired.
    var action: FaultAction?
    /// Armed per-edit failures (edit operations in scope of an ``FaultKind/editFailure`` rule).
    var editFailures: EditFaultInjection?

    /// Whether nothing is injected.
    var isNone: Bool { latency == .zero && action == nil && editFailures == nil }
}

/// A request-level fault, with what it needs to be carried out.
enum FaultAction: Sendable, Hashable {
    /// Answer with this HTTP status and the envelope (code = status); `Retry-After` when given.
    case httpError(status: Int, retryAfterSeconds: Int?)
    /// Answer HTTP 200 with the ArcGIS error envelope of this code.
    case arcgisError(code: Int)
    case dropBeforeHandler
    case dropAfterCommit
    case truncatedResponse
    case stall(Duration)

    /// The kind reported in `X-Featureload-Fault` and counted in the statistics.
    var kind: FaultKind {
        switch self {
        case .httpError(let status, _): status == 429 ? .http429 : status == 503 ? .http503 : .http500
        case .arcgisError(let code): code == 503 ? .arcgisError503 : .arcgisError500
        case .dropBeforeHandler: .dropBeforeHandler
        case .dropAfterCommit: .dropAfterCommit
        case .truncatedResponse: .truncatedResponse
        case .stall: .stall
        }
    }
}

/// Decides the faults of each request from the settings and one seeded random stream. Pure: no I/O, no clock.
///
/// Every call consumes exactly four draws (two for latency, one for the request-level roll, one as the seed of the
/// per-edit failures), whatever fires, so the n-th request of a run always gets the same decision for the same
/// settings. Request-level rules are exclusive: one uniform draw `u` walks the matching rules in order and picks the
/// first whose cumulative rate exceeds `u`.
struct FaultDecider: Sendable {
    /// The settings decided from.
    let faults: LocalFeatureServerConfiguration.Faults
    private var random: SplitMix64

    /// A decider at the start of the stream of `faults.seed`.
    init(_ faults: LocalFeatureServerConfiguration.Faults) {
        self.faults = faults
        random = SplitMix64(seed: faults.seed)
    }

    /// The decision for the next request, to `path` (the URL path) naming `operation` (see ``operation(of:)``).
    mutating func decide(path: String, operation: String) -> FaultDecision {
        let latencyDraws = (unit(), unit())
        let roll = unit()
        let editSeed = random.next()
        var decision = FaultDecision()
        if let latency = faults.latency, latency.scope.matches(path: path, operation: operation) {
            decision.latency = latency.distribution.sample(latencyDraws.0, latencyDraws.1)
        }
        var cumulative = 0.0
        for rule in faults.rules where rule.rate > 0 && rule.scope.matches(path: path, operation: operation) {
            if rule.kind == .editFailure {
                if decision.editFailures == nil && Self.editOperations.contains(operation) {
                    decision.editFailures = EditFaultInjection(rate: rule.rate, seed: editSeed)
                }
                continue
            }
            cumulative += rule.rate
            if decision.action == nil && roll < cumulative { decision.action = Self.action(for: rule) }
        }
        return decision
    }

    private static func action(for rule: FaultRule) -> FaultAction {
        switch rule.kind {
        case .http500: .httpError(status: 500, retryAfterSeconds: nil)
        case .http503: .httpError(status: 503, retryAfterSeconds: nil)
        case .http429: .httpError(status: 429, retryAfterSeconds: max(0, rule.retryAfterSeconds))
        case .arcgisError500: .arcgisError(code: 500)
        case .arcgisError503: .arcgisError(code: 503)
        case .dropBeforeHandler: .dropBeforeHandler
        case .dropAfterCommit: .dropAfterCommit
        case .truncatedResponse: .truncatedResponse
        case .stall: .stall(.milliseconds(Int64((max(0, rule.stallSeconds) * 1000).rounded())))
        case .editFailure: preconditionFailure("edit failures are not request-level")
        }
    }

    /// A uniform draw in [0, 1) from the top 53 bits.
    private mutating func unit() -> Double {
        random.nextUnit()
    }

    /// Operations whose requests carry edits.
    static let editOperations: Set<String> = ["applyedits", "addfeatures", "updatefeatures", "deletefeatures"]

    /// The operation a path names, lower-cased: its last segment, `layer` for `…/FeatureServer/<id>`, `service`
    /// for `…/FeatureServer`.
    static func operation(of path: String) -> String {
        let segments = path.split(separator: "/")
        guard let last = segments.last?.lowercased() else { return "" }
        if last == "featureserver" { return "service" }
        if Int(last) != nil, segments.count >= 2, segments[segments.count - 2].lowercased() == "featureserver" { return "layer" }
        return last
    }
}

/// Per-edit failures armed for one edit request: which edits fail is a pure function of the seed and the edit's
/// position, so the same request fails the same edits.
///
/// The fault middleware binds it to ``current`` around the handler; ``EditBatch`` picks it up when it is made, and
/// the edit writer asks ``failure(_:index:)`` before each edit.
struct EditFaultInjection: Sendable, Hashable {
    /// Probability that one edit fails.
    var rate: Double
    /// Seed of this request's failures.
    var seed: UInt64
    /// Counts the failures injected (shared with the statistics); not part of equality.
    var tally: FaultTally?

    init(rate: Double, seed: UInt64, tally: FaultTally? = nil) {
        self.rate = rate
        self.seed = seed
        self.tally = tally
    }

    /// The injection in force for the current request's task, if any.
    @TaskLocal static var current: EditFaultInjection?

    /// An edit's place in a batch.
    enum Edit: UInt64, Sendable {
        case add = 1
        case update = 2
        case delete = 3
    }

    /// Whether edit `index` of kind `edit` fails; pure.
    func fails(_ edit: Edit, index: Int) -> Bool {
        var random = SplitMix64(seed: seed ^ (UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15) ^ (edit.rawValue << 56))
        return random.nextUnit() < rate
    }

    /// The error of edit `index` when it fails (counted in the tally), or nil.
    func failure(_ edit: Edit, index: Int) -> EditError? {
        guard fails(edit, index: index) else { return nil }
        tally?.add(1)
        let code: Int
        switch edit {
        case .add: code = EditErrorCode.insertFailed
        case .update: code = EditErrorCode.constraintViolated
        case .delete: code = EditErrorCode.deleteFailed
        }
        return EditError(code: code, description: "Injected fault: the edit failed.")
    }

    static func == (lhs: EditFaultInjection, rhs: EditFaultInjection) -> Bool {
        lhs.rate == rhs.rate && lhs.seed == rhs.seed
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(rate)
        hasher.combine(seed)
    }
}
