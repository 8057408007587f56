import Foundation

/// A candidate run against a baseline: per scenario (and operation) and metric, the change and whether it is a
/// regression.
///
/// A change counts only when it is larger than the tolerance, statistically significant, and large as an effect
/// size. The noise is judged from the runs themselves, so two runs of the same build do not flag each other:
/// - with at least ``minimumSeconds`` full seconds in both runs, the per-second values (requests, edits, latency
///   percentiles of the second) are compared by a two-sided Mann–Whitney U test;
/// - in shorter runs, latency is compared on the requests' own distributions (the HDR histograms); throughput cannot
///   be judged (a run of two seconds has no spread to judge it by), so a change in it is ``Verdict/inconclusive``;
/// - on top of significance, the two samples must differ by a *large* effect: Cliff's δ (the probability that a
///   value of one run exceeds one of the other, less the reverse) at least ``largeEffect`` in size. Thousands of
///   requests make any small systematic shift significant; a shift that leaves the two distributions overlapping
///   this much is within what one shared machine does from run to run, not a regression;
/// - the failure rate by a two-proportion z-test, ignoring a change in rate under a tenth of the tolerance (at
///   least 0.1 point).
/// The significance level is 1 %.
public struct RunComparison: Sendable, Codable, Equatable {
    public var baseline: String
    public var candidate: String
    public var tolerance: Double
    public var rows: [Row]

    /// What one row found.
    public enum Verdict: String, Sendable, Codable {
        case regression
        case improvement
        /// Beyond the tolerance, but within the runs' noise.
        case noise
        /// Beyond the tolerance, but the runs are too short to tell it from noise.
        case inconclusive
        case unchanged
    }

    public struct Row: Sendable, Codable, Equatable {
        public var scenario: String
        /// The operation, or nil for the whole scenario.
        public var operation: String?
        public var metric: String
        public var unit: String
        public var baseline: Double
        public var candidate: Double
        /// (candidate − baseline) / baseline; for the failure rate, the difference in rate.
        public var change: Double
        /// The test's two-sided p-value, when there was spread to test.
        public var pValue: Double?
        /// Cliff's δ of candidate against baseline (−1…1; positive: the candidate's values are larger), when there
        /// was spread to test.
        public var effectSize: Double?
        public var verdict: Verdict
        /// How the noise was judged.
        public var basis: String
    }

    /// Whether any row is a regression.
    public var regressed: Bool { rows.contains { $0.verdict == .regression } }

    /// The metrics compared, in order; `--metric` chooses among them.
    public static let metrics = ["requestsPerSecond", "editsPerSecond", "p50", "p95", "p99", "failureRate"]

    /// Full seconds a run needs for its per-second values to be compared.
    public static let minimumSeconds = 5
    static let significance = 0.01
    /// The smallest |Cliff's δ| that counts as a change: 0.474, the bound of a "large" effect (Romano et al., 2006).
    public static let largeEffect = 0.474

    /// Why two reports cannot be compared.
    public struct NotComparable: Error, CustomStringConvertible {
        public var description: String
    }

    /// A comparison of rows already made.
    init(baseline: String, candidate: String, tolerance: Double, rows: [Row]) {
        self.baseline = baseline
        self.candidate = candidate
        self.tolerance = tolerance
        self.rows = rows
    }

    /// Compares `candidate` with `baseline`.
    /// - Throws: ``NotComparable`` when the runs do not have the same scenarios.
    public init(
        baseline: RunReport, candidate: RunReport, baselineName: String, candidateName: String, tolerance: Double,
        metrics: [String] = RunComparison.metrics
    ) throws(NotComparable) {
        let baseNames = baseline.scenarios.map(\.name)
        let newNames = candidate.scenarios.map(\.name)
        guard Set(baseNames) == Set(newNames) else {
            throw NotComparable(
                description: "the runs have different scenarios: \(baseNames.joined(separator: ", ")) against \(newNames.joined(separator: ", "))")
        }
        self.baseline = baselineName
        self.candidate = candidateName
        self.tolerance = tolerance
        var rows: [Row] = []
        let baseViews = Dictionary(uniqueKeysWithValues: baseline.views.map { ($0.name, $0) })
        for newView in candidate.views {
            guard let baseView = baseViews[newView.name] else { continue }
            let side = (Side(report: baseline, view: baseView, operation: nil), Side(report: candidate, view: newView, operation: nil))
            rows += Self.rows(scenario: newView.name, operation: nil, side.0, side.1, tolerance: tolerance, metrics: metrics)
            guard newView.operations.count > 1 else { continue }
            for operation in newView.operations.map(\.label) where baseView.operations.contains(where: { $0.label == operation }) {
                rows += Self.rows(
                    scenario: newView.name, operation: operation, Side(report: baseline, view: baseView, operation: operation),
                    Side(report: candidate, view: newView, operation: operation), tolerance: tolerance, metrics: metrics)
            }
        }
        self.rows = rows
    }

    /// One run's figures for a scenario or one of its operations.
    struct Side {
        var requests: Double
        var failed: Double
        var edits: Double
        var seconds: Double
        var latency: LatencyHistogram
        /// Full seconds only (the first and last are partial): requests, edits and the second's latency.
        var perSecond: [(requests: Double, edits: Double, latency: LatencyHistogram)]

        init(
            requests: Double, failed: Double, edits: Double, seconds: Double, latency: LatencyHistogram,
            perSecond: [(requests: Double, edits: Double, latency: LatencyHistogram)]
        ) {
            self.requests = requests
            self.failed = failed
            self.edits = edits
            self.seconds = seconds
            self.latency = latency
            self.perSecond = perSecond
        }

        init(report: RunReport, view: ScenarioView, operation: String?) {
            let op = operation.flatMap { label in view.operations.first { $0.label == label } }
            requests = Double(op?.requests ?? view.requests)
            failed = Double(op?.failedRequests ?? view.failedRequests)
            edits = Double(op?.editsApplied ?? view.editsApplied)
            seconds = max(view.record.durationSeconds, 1e-9)
            var filter = ["scenario": view.name]
            if let operation { filter["operation"] = operation }
            latency = report.aggregate(.httpReqDuration, filter: filter)?.histogram ?? LatencyHistogram()
            let seconds = report.seconds(of: view.name, operation: operation)
            perSecond = seconds.count > 2 ? seconds.dropFirst().dropLast().map { (Double($0.requests), Double($0.edits), $0.latency) } : []
        }
    }

    static func rows(
        scenario: String, operation: String?, _ base: Side, _ new: Side, tolerance: Double, metrics: [String]
    ) -> [Row] {
        let spread = base.perSecond.count >= minimumSeconds && new.perSecond.count >= minimumSeconds
        var rows: [Row] = []
        func add(
            _ metric: String, unit: String, base a: Double, new b: Double, higherIsBetter: Bool, test: (p: Double, delta: Double)?,
            basis: String
        ) {
            guard metrics.contains(metric) else { return }
            let change = a == 0 ? (b == 0 ? 0 : .infinity) : (b - a) / a
            let worse = higherIsBetter ? -change : change
            let verdict: Verdict
            if abs(change) <= tolerance {
                verdict = .unchanged
            } else if let test {
                verdict = test.p >= significance || abs(test.delta) < largeEffect ? .noise : worse > 0 ? .regression : .improvement
            } else {
                verdict = .inconclusive
            }
            rows.append(
                Row(scenario: scenario, operation: operation, metric: metric, unit: unit, baseline: a, candidate: b, change: change,
                    pValue: test?.p, effectSize: test?.delta, verdict: verdict, basis: basis))
        }
        let secondsBasis = "per-second values: Mann–Whitney, Cliff's δ"
        let shortBasis = "too short to judge throughput: \(min(base.perSecond.count, new.perSecond.count)) full seconds, \(minimumSeconds) needed"
        add(
            "requestsPerSecond", unit: "req/s", base: base.requests / base.seconds, new: new.requests / new.seconds, higherIsBetter: true,
            test: spread ? compare(base.perSecond.map { ($0.requests, 1) }, new.perSecond.map { ($0.requests, 1) }) : nil,
            basis: spread ? secondsBasis : shortBasis)
        if base.edits > 0 || new.edits > 0 {
            add(
                "editsPerSecond", unit: "edits/s", base: base.edits / base.seconds, new: new.edits / new.seconds, higherIsBetter: true,
                test: spread ? compare(base.perSecond.map { ($0.edits, 1) }, new.perSecond.map { ($0.edits, 1) }) : nil,
                basis: spread ? secondsBasis : shortBasis)
        }
        if base.latency.count > 0 && new.latency.count > 0 {
            // Over the requests: computed once for the three percentiles.
            let requestTest = spread ? nil : compare(Self.weighted(base.latency), Self.weighted(new.latency))
            for (metric, percentile) in [("p50", 50.0), ("p95", 95.0), ("p99", 99.0)] {
                let test: (p: Double, delta: Double)
                let basis: String
                if let requestTest {
                    test = requestTest
                    basis = "request latencies: Mann–Whitney, Cliff's δ"
                } else {
                    test = compare(
                        base.perSecond.filter { $0.latency.count > 0 }.map { (Double($0.latency.percentile(percentile)), 1) },
                        new.perSecond.filter { $0.latency.count > 0 }.map { (Double($0.latency.percentile(percentile)), 1) })
                    basis = secondsBasis
                }
                add(
                    metric, unit: "ms", base: Double(base.latency.percentile(percentile)) / 1000,
                    new: Double(new.latency.percentile(percentile)) / 1000, higherIsBetter: false, test: test, basis: basis)
            }
        }
        if metrics.contains("failureRate") && (base.requests > 0 && new.requests > 0) {
            let a = base.failed / base.requests
            let b = new.failed / new.requests
            let p = twoProportion(base.failed, base.requests, new.failed, new.requests)
            let verdict: Verdict
            if abs(b - a) <= max(tolerance / 10, 0.001) {
                verdict = .unchanged
            } else if p >= significance {
                verdict = .noise
            } else {
                verdict = b > a ? .regression : .improvement
            }
            rows.append(
                Row(scenario: scenario, operation: operation, metric: "failureRate", unit: "rate", baseline: a, candidate: b, change: b - a,
                    pValue: p, effectSize: nil, verdict: verdict, basis: "failed requests, two-proportion z-test; a change of less than \(Self.points(max(tolerance / 10, 0.001))) is ignored"))
        }
        return rows
    }

    /// A histogram's values as (value, weight) pairs.
    static func weighted(_ histogram: LatencyHistogram) -> [(Double, Double)] {
        histogram.recorded.map { (Double($0[0]), Double($0[1])) }
    }

    /// Two-sided p-value of the Mann–Whitney U test (normal approximation with the tie correction) for weighted
    /// samples; 1 when either side is empty or every value is tied.
    static func mannWhitney(_ a: [(Double, Double)], _ b: [(Double, Double)]) -> Double {
        compare(a, b).p
    }

    /// Cliff's δ of `b` against `a` for weighted samples: P(b > a) − P(b < a), from −1 to 1; 0 when either is empty.
    static func cliffsDelta(_ a: [(Double, Double)], _ b: [(Double, Double)]) -> Double {
        compare(a, b).delta
    }

    /// The Mann–Whitney p-value and Cliff's δ of `b` against `a`, from one ranking of weighted samples.
    static func compare(_ a: [(Double, Double)], _ b: [(Double, Double)]) -> (p: Double, delta: Double) {
        let n1 = a.reduce(0) { $0 + $1.1 }
        let n2 = b.reduce(0) { $0 + $1.1 }
        guard n1 > 0, n2 > 0 else { return (1, 0) }
        var values: [Double: (Double, Double)] = [:]
        for (value, weight) in a { values[value, default: (0, 0)].0 += weight }
        for (value, weight) in b { values[value, default: (0, 0)].1 += weight }
        var rank = 0.0
        var rankSumA = 0.0
        var ties = 0.0
        for value in values.keys.sorted() {
            let (fromA, fromB) = values[value]!
            let t = fromA + fromB
            let midRank = rank + (t + 1) / 2
            rankSumA += fromA * midRank
            ties += t * t * t - t
            rank += t
        }
        let n = n1 + n2
        // U counts the pairs where a's value is the larger (ties as half), so δ = P(b > a) − P(b < a) = 1 − 2U/(n1·n2).
        let u = rankSumA - n1 * (n1 + 1) / 2
        let delta = 1 - 2 * u / (n1 * n2)
        let mean = n1 * n2 / 2
        let variance = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
        guard variance > 0 else { return (1, delta) }
        let z = (abs(u - mean) - 0.5) / variance.squareRoot()
        return (min(1, erfc(max(z, 0) / 2.0.squareRoot())), delta)
    }

    /// Two-sided p-value of the two-proportion z-test; 1 when there is no variation.
    static func twoProportion(_ x1: Double, _ n1: Double, _ x2: Double, _ n2: Double) -> Double {
        let pooled = (x1 + x2) / (n1 + n2)
        let variance = pooled * (1 - pooled) * (1 / n1 + 1 / n2)
        guard variance > 0 else { return 1 }
        let z = abs(x1 / n1 - x2 / n2) / variance.squareRoot()
        return erfc(z / 2.0.squareRoot())
    }

    static func points(_ value: Double) -> String {
        let text = String(format: "%.1f", value * 100)
        return (text.hasSuffix(".0") ? String(text.dropLast(2)) : text) + (value == 0.01 ? " percentage point" : " percentage points")
    }

    static func percent(_ value: Double) -> String {
        let text = String(format: "%.1f", value * 100)
        return (text.hasSuffix(".0") ? String(text.dropLast(2)) : text) + " %"
    }
}
