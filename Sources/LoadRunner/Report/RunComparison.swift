import Foundation

/// A candidate run against a baseline: per scenario (and operation) and metric, the change and whether it is a
/// regression.
///
/// A change counts only when it is larger than the tolerance, statistically significant, and large as an effect
/// size. The noise is judged from the runs themselves, on the data that has the power to judge it:
/// - latency on the requests' own distributions (the HDR histograms: thousands of samples), by a two-sided
///   Mann–Whitney U test with Cliff's δ (the probability that a value of one run exceeds one of the other, less the
///   reverse) as the effect size;
/// - throughput on the per-second values of the full seconds, by the exact Mann–Whitney test (its permutation
///   distribution, ties included), whose smallest attainable p-value is reported. When even the most extreme
///   outcome could not reach the significance level (too few seconds), that test says nothing. A scenario with a
///   fixed number of VUs is then judged on its iterations' durations, since its throughput is VUs over iteration
///   time (a short run's edges move its rate; its iterations show whether it was slower); any other is judged by
///   the tolerance alone: never called noise;
/// - on top of significance, the effect must be *large*: |δ| at least ``largeEffect``. Thousands of requests make
///   any small systematic shift significant; a shift that leaves the two distributions overlapping this much is
///   within what one shared machine does from run to run, not a regression;
/// - the failure rate by a two-proportion z-test, ignoring a change in rate under a tenth of the tolerance (at
///   least 0.1 point).
/// The significance level is 1 %.
package struct RunComparison: Sendable, Codable, Equatable {
    package var baseline: String
    package var candidate: String
    package var tolerance: Double
    package var rows: [Row]
    /// Where the two runs were not run alike (overrides, tags, variables), in words; nil when they were.
    var conditionDifferences: [String]?

    /// What one row found.
    package enum Verdict: String, Sendable, Codable {
        case regression
        case improvement
        /// Beyond the tolerance, but within the runs' noise.
        case noise
        /// Beyond the tolerance, but the runs are too short to tell it from noise (reports written before the
        /// tolerance judged such changes; kept so that they still load).
        case inconclusive
        case unchanged
    }

    package struct Row: Sendable, Codable, Equatable {
        package var scenario: String
        /// The operation, or nil for the whole scenario.
        package var operation: String?
        package var metric: String
        package var unit: String
        package var baseline: Double
        package var candidate: Double
        /// (candidate − baseline) / baseline; for the failure rate, the difference in rate.
        package var change: Double
        /// The test's two-sided p-value, when there was spread to test.
        var pValue: Double?
        /// Cliff's δ of candidate against baseline (−1…1; positive: the candidate's values are larger), when there
        /// was spread to test.
        var effectSize: Double?
        /// The smallest p-value the test could have given with these samples: above the significance level, the test
        /// could not decide, and the tolerance did.
        var minimumPValue: Double?
        package var verdict: Verdict
        /// How the noise was judged.
        var basis: String
    }

    /// Whether any row is a regression.
    package var regressed: Bool { rows.contains { $0.verdict == .regression } }

    /// The metrics compared, in order; `--metric` chooses among them.
    package static let metrics = ["requestsPerSecond", "editsPerSecond", "p50", "p95", "p99", "failureRate"]

    static let significance = 0.01
    /// The smallest |Cliff's δ| that counts as a change: 0.474, the bound of a "large" effect (Romano et al., 2006).
    static let largeEffect = 0.474

    /// Why two reports cannot be compared.
    package struct NotComparable: Error, CustomStringConvertible {
        package var description: String
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
    package init(
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
        let differences = RunReport.conditionDifferences(baseline: baseline, candidate: candidate)
        conditionDifferences = differences.isEmpty ? nil : differences
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
        /// The iterations' durations, and whether a fixed number of VUs ran them (a closed model: constant-vus,
        /// ramping-vus, per-vu-iterations, shared-iterations), where throughput is VUs over iteration time.
        var iterations: LatencyHistogram
        var closedModel: Bool

        init(
            requests: Double, failed: Double, edits: Double, seconds: Double, latency: LatencyHistogram,
            perSecond: [(requests: Double, edits: Double, latency: LatencyHistogram)],
            iterations: LatencyHistogram = LatencyHistogram(), closedModel: Bool = false
        ) {
            self.requests = requests
            self.failed = failed
            self.edits = edits
            self.seconds = seconds
            self.latency = latency
            self.perSecond = perSecond
            self.iterations = iterations
            self.closedModel = closedModel
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
            iterations = report.aggregate(.iterationDuration, filter: filter)?.histogram ?? LatencyHistogram()
            closedModel = Self.closedModelExecutors.contains(view.record.executor)
        }

        /// Executors that run a fixed number of VUs, each starting its next iteration when the last ends.
        static let closedModelExecutors: Set<String> = ["constant-vus", "ramping-vus", "per-vu-iterations", "shared-iterations"]
    }

    /// What a test found: its p-value, its effect (Cliff's δ), and the smallest p-value it could have reached.
    struct TestResult {
        var p: Double
        var delta: Double
        var minimumP: Double
    }

    static func rows(
        scenario: String, operation: String?, _ base: Side, _ new: Side, tolerance: Double, metrics: [String]
    ) -> [Row] {
        var rows: [Row] = []
        func add(_ metric: String, unit: String, base a: Double, new b: Double, higherIsBetter: Bool, test: TestResult, basis: String) {
            guard metrics.contains(metric) else { return }
            let change = a == 0 ? (b == 0 ? 0 : .infinity) : (b - a) / a
            let worse = higherIsBetter ? -change : change
            let verdict: Verdict
            var basis = basis
            if abs(change) <= tolerance {
                verdict = .unchanged
            } else if test.minimumP >= significance {
                // Not even the most extreme outcome could be significant: the test cannot speak, the tolerance does.
                verdict = worse > 0 ? .regression : .improvement
                basis += "; the test cannot reach 1 % with these samples (smallest p \(Self.pText(test.minimumP))): judged by the tolerance alone"
            } else {
                // A large, significant effect counts only in the direction of the change (δ > 0: the candidate's
                // values are larger, which is worse for a time and better for a rate).
                let testSaysWorse = higherIsBetter ? test.delta < 0 : test.delta > 0
                verdict =
                    test.p >= significance || abs(test.delta) < largeEffect || testSaysWorse != (worse > 0)
                    ? .noise : worse > 0 ? .regression : .improvement
            }
            rows.append(
                Row(
                    scenario: scenario, operation: operation, metric: metric, unit: unit, baseline: a, candidate: b, change: change,
                    pValue: test.p, effectSize: test.delta, minimumPValue: test.minimumP, verdict: verdict, basis: basis))
        }
        let requestsTest = throughputTest(base.perSecond.map(\.requests), new.perSecond.map(\.requests), base, new)
        add(
            "requestsPerSecond", unit: "req/s", base: base.requests / base.seconds, new: new.requests / new.seconds, higherIsBetter: true,
            test: requestsTest.test, basis: requestsTest.basis)
        if base.edits > 0 || new.edits > 0 {
            let editsTest = throughputTest(base.perSecond.map(\.edits), new.perSecond.map(\.edits), base, new)
            add(
                "editsPerSecond", unit: "edits/s", base: base.edits / base.seconds, new: new.edits / new.seconds, higherIsBetter: true,
                test: editsTest.test, basis: editsTest.basis)
        }
        if base.latency.count > 0 && new.latency.count > 0 {
            // Over the requests: computed once for the three percentiles.
            let ranked = compare(Self.weighted(base.latency), Self.weighted(new.latency))
            let test = TestResult(p: ranked.p, delta: ranked.delta, minimumP: 0)
            let basis = "\(base.latency.count) and \(new.latency.count) request latencies: Mann–Whitney, Cliff's δ"
            for (metric, percentile) in [("p50", 50.0), ("p95", 95.0), ("p99", 99.0)] {
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
                Row(
                    scenario: scenario, operation: operation, metric: "failureRate", unit: "rate", baseline: a, candidate: b, change: b - a,
                    pValue: p, effectSize: nil, verdict: verdict,
                    basis: "failed requests, two-proportion z-test; a change of less than \(Self.points(max(tolerance / 10, 0.001))) is ignored"))
        }
        return rows
    }

    /// The test of a throughput change: the exact Mann–Whitney test of the per-second values; when too few full
    /// seconds make 1 % unreachable and both runs had a fixed number of VUs, the iterations' durations instead
    /// (throughput is VUs over iteration time: a run whose iterations take no longer did not lose throughput, only
    /// the edges of a short run moved). Otherwise the per-second test stands, and the tolerance decides.
    static func throughputTest(_ a: [Double], _ b: [Double], _ base: Side, _ new: Side) -> (test: TestResult, basis: String) {
        let perSecond = perSecondTest(a, b)
        let basis = "\(a.count) and \(b.count) full seconds: exact Mann–Whitney, Cliff's δ"
        guard perSecond.minimumP >= significance, base.closedModel, new.closedModel, base.iterations.count > 0, new.iterations.count > 0
        else { return (perSecond, basis) }
        let ranked = compare(weighted(base.iterations), weighted(new.iterations))
        // Longer iterations are fewer per second: as rates, the candidate's effect is the opposite of its times'.
        return (
            TestResult(p: ranked.p, delta: -ranked.delta, minimumP: 0),
            "\(a.count) and \(b.count) full seconds cannot reach 1 % (smallest p \(pText(perSecond.minimumP))); with a fixed number "
                + "of VUs throughput follows iteration time: \(base.iterations.count) and \(new.iterations.count) iterations, "
                + "Mann–Whitney, Cliff's δ"
        )
    }

    /// The exact Mann–Whitney test and Cliff's δ of two series of per-second values.
    static func perSecondTest(_ a: [Double], _ b: [Double]) -> TestResult {
        let ranked = compare(a.map { ($0, 1) }, b.map { ($0, 1) })
        guard let exact = exactMannWhitney(a, b) else { return TestResult(p: ranked.p, delta: ranked.delta, minimumP: 0) }
        return TestResult(p: exact.p, delta: ranked.delta, minimumP: exact.minimumP)
    }

    /// The exact two-sided p-value of the Mann–Whitney test from the permutation distribution of the rank sum (mid
    /// ranks for ties), and the smallest p-value any split of these values could give; nil when the samples are too
    /// large to enumerate (the normal approximation is then as good) or either is empty.
    static func exactMannWhitney(_ a: [Double], _ b: [Double], maximumCount: Int = 80) -> (p: Double, minimumP: Double)? {
        guard !a.isEmpty, !b.isEmpty, a.count + b.count <= maximumCount else {
            return a.isEmpty || b.isEmpty ? (1, 1) : nil
        }
        let pooled = (a.map { ($0, true) } + b.map { ($0, false) }).sorted { $0.0 < $1.0 }
        // Doubled mid ranks, so that every rank is a whole number.
        var doubled = [Int](repeating: 0, count: pooled.count)
        var index = 0
        while index < pooled.count {
            var end = index
            while end + 1 < pooled.count && pooled[end + 1].0 == pooled[index].0 { end += 1 }
            for k in index...end { doubled[k] = index + end + 2 }
            index = end + 1
        }
        let n1 = a.count
        let total = doubled.reduce(0, +)
        // ways[k][s]: how many sets of k values have doubled rank sum s.
        var ways = [[Double]](repeating: [Double](repeating: 0, count: total + 1), count: n1 + 1)
        ways[0][0] = 1
        for (seen, rank) in doubled.enumerated() {
            for k in stride(from: min(seen + 1, n1), through: 1, by: -1) {
                for sum in stride(from: total - rank, through: 0, by: -1) where ways[k - 1][sum] != 0 {
                    ways[k][sum + rank] += ways[k - 1][sum]
                }
            }
        }
        let observed = zip(pooled, doubled).reduce(0) { $0 + ($1.0.1 ? $1.1 : 0) }
        let mean = Double(total) * Double(n1) / Double(pooled.count)
        let distance = abs(Double(observed) - mean)
        var all = 0.0
        var asExtreme = 0.0
        var farthest = 0.0
        for (sum, count) in ways[n1].enumerated() where count > 0 {
            all += count
            if abs(Double(sum) - mean) >= distance - 1e-9 { asExtreme += count }
            farthest = max(farthest, abs(Double(sum) - mean))
        }
        let atFarthest = ways[n1].enumerated().reduce(0.0) { $0 + (abs(Double($1.offset) - mean) >= farthest - 1e-9 ? $1.element : 0) }
        return (min(1, asExtreme / all), min(1, atFarthest / all))
    }

    static func pText(_ p: Double) -> String {
        p < 0.0001 ? "<0.0001" : String(format: "%.4f", p)
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
