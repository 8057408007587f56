import Foundation

/// What an injected fault does to a request.
package enum FaultKind: String, Sendable, Hashable, CaseIterable {
    /// HTTP 500 with the ArcGIS envelope (code 500), before the handler runs.
    case http500
    /// HTTP 503 with the ArcGIS envelope (code 503), before the handler runs.
    case http503
    /// HTTP 429 with `Retry-After` (``FaultRule/retryAfterSeconds``) and the envelope (code 429), before the handler runs.
    case http429
    /// HTTP 200 with the ArcGIS error envelope, code 500, before the handler runs (the ArcGIS way of failing).
    case arcgisError500
    /// HTTP 200 with the ArcGIS error envelope, code 503, before the handler runs.
    case arcgisError503
    /// Per-edit failures inside applyEdits: each edit fails with the given probability (insert 1017, update 1019,
    /// delete 1018); with rollbackOnFailure (the default) the whole batch rolls back.
    case editFailure
    /// The connection is closed before the handler runs: nothing happened, no answer (curl 52, empty reply).
    case dropBeforeHandler
    /// The handler runs (an edit is committed), then the connection is closed without an answer.
    case dropAfterCommit
    /// The handler runs, then half of the answer is sent and the connection closed (curl 18, partial body).
    case truncatedResponse
    /// The answer is held back for ``FaultRule/stallSeconds``, then sent (client timeouts fire first).
    case stall
}

/// Which requests a fault or latency applies to. An empty scope matches every request.
package struct FaultScope: Sendable, Hashable {
    /// A path pattern, matched case-insensitively against the whole URL path; `*` stands for any run of
    /// characters (e.g. `*/FeatureServer/0/*`). `nil`: any path.
    package var path: String?
    /// The operation: the last path segment, e.g. `applyEdits`, `query`, `addFeatures`, case-insensitive (a layer
    /// document is `layer`, a service document `service`). `nil`: any operation.
    package var operation: String?

    /// A scope; `nil` fields match everything.
    package init(path: String? = nil, operation: String? = nil) {
        self.path = path
        self.operation = operation
    }

    /// Whether a request to `path` (operation `operation`, lower-cased) is in scope.
    func matches(path requestPath: String, operation requestOperation: String) -> Bool {
        if let operation, operation.lowercased() != requestOperation { return false }
        if let path, !Self.glob(path.lowercased(), matches: requestPath.lowercased()) { return false }
        return true
    }

    /// `*`-only glob matching over bytes, iterative with backtracking to the last star (linear in practice).
    static func glob(_ pattern: String, matches text: String) -> Bool {
        let p = Array(pattern.utf8)
        let t = Array(text.utf8)
        var pi = 0
        var ti = 0
        var star: Int?
        var mark = 0
        while ti < t.count {
            if pi < p.count, p[pi] == UInt8(ascii: "*") {
                star = pi
                mark = ti
                pi += 1
            } else if pi < p.count, p[pi] == t[ti] {
                pi += 1
                ti += 1
            } else if let star {
                pi = star + 1
                mark += 1
                ti = mark
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == UInt8(ascii: "*") { pi += 1 }
        return pi == p.count
    }
}

/// One fault: its kind, how often it fires and where.
package struct FaultRule: Sendable, Hashable {
    /// What happens.
    package var kind: FaultKind
    /// Probability per matching request (per edit for ``FaultKind/editFailure``), 0…1.
    package var rate: Double
    /// Which requests it applies to. Default: all.
    package var scope: FaultScope
    /// `Retry-After` of ``FaultKind/http429``, in seconds. Default 1.
    package var retryAfterSeconds: Int
    /// How long ``FaultKind/stall`` holds the answer back, in seconds. Default 30.
    package var stallSeconds: Double

    /// A rule; every parameter defaults to the documented property default.
    package init(kind: FaultKind, rate: Double, scope: FaultScope = FaultScope(), retryAfterSeconds: Int = 1, stallSeconds: Double = 30) {
        self.kind = kind
        self.rate = rate
        self.scope = scope
        self.retryAfterSeconds = retryAfterSeconds
        self.stallSeconds = stallSeconds
    }
}

/// Added latency: a distribution of delays in milliseconds and the requests it applies to.
package struct FaultLatency: Sendable, Hashable {
    /// The delay distribution.
    package var distribution: LatencyDistribution
    /// Which requests are delayed. Default: all.
    package var scope: FaultScope

    /// Latency for `scope`.
    package init(_ distribution: LatencyDistribution, scope: FaultScope = FaultScope()) {
        self.distribution = distribution
        self.scope = scope
    }
}

/// A delay distribution, in milliseconds. Samples are clamped to 0…``maximumMilliseconds``.
package enum LatencyDistribution: Sendable, Hashable {
    /// Always `milliseconds`.
    case fixed(milliseconds: Double)
    /// Uniform between `minimum` and `maximum`.
    case uniform(minimum: Double, maximum: Double)
    /// Normal with `mean` and `standardDeviation` (negative draws become 0).
    case normal(mean: Double, standardDeviation: Double)
    /// Log-normal with the given `median` (e^µ) and shape `sigma` (σ of the underlying normal): a long right tail.
    case logNormal(median: Double, sigma: Double)

    /// The longest delay drawn: 60 s.
    package static let maximumMilliseconds = 60_000.0

    /// A delay from two uniform draws in [0, 1) (Box–Muller for the normal forms), so every request consumes the
    /// same number of draws whatever the distribution.
    func sample(_ first: Double, _ second: Double) -> Duration {
        let milliseconds: Double
        switch self {
        case .fixed(let value):
            milliseconds = value
        case .uniform(let minimum, let maximum):
            milliseconds = minimum + (maximum - minimum) * first
        case .normal(let mean, let standardDeviation):
            milliseconds = mean + standardDeviation * Self.standardNormal(first, second)
        case .logNormal(let median, let sigma):
            milliseconds = median * exp(sigma * Self.standardNormal(first, second))
        }
        let clamped = min(max(milliseconds.isFinite ? milliseconds : 0, 0), Self.maximumMilliseconds)
        return .microseconds(Int64((clamped * 1000).rounded()))
    }

    /// A standard normal deviate from two uniforms (Box–Muller).
    static func standardNormal(_ first: Double, _ second: Double) -> Double {
        let u = max(first, Double.leastNonzeroMagnitude)
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * second)
    }
}
