import Testing

@testable import LoadRunner

@Suite struct RunComparisonTests {
    @Test("Mann–Whitney: separated samples are significant, identical ones are not, weights count as repeats")
    func mannWhitney() {
        let low = (1...5).map { (Double($0), 1.0) }
        let high = (6...10).map { (Double($0), 1.0) }
        let p = RunComparison.mannWhitney(low, high)
        #expect(abs(p - 0.0122) < 0.001, "normal approximation with continuity correction: \(p)")
        #expect(RunComparison.mannWhitney(low, low) == 1)
        #expect(RunComparison.mannWhitney([(5, 3)], [(5, 1), (5, 1), (5, 1)]) == 1, "all tied")
        let weighted = RunComparison.mannWhitney([(1, 50), (2, 50)], [(3, 50), (4, 50)])
        #expect(weighted < 1e-10)
        #expect(RunComparison.mannWhitney([], high) == 1)
    }

    @Test("two-proportion test: 1 % against 5 % of 10,000 requests differs; equal rates do not")
    func proportions() {
        #expect(RunComparison.twoProportion(100, 10_000, 500, 10_000) < 1e-10)
        #expect(RunComparison.twoProportion(100, 10_000, 100, 10_000) == 1)
        #expect(RunComparison.twoProportion(0, 10, 0, 10) == 1)
    }

    static func side(requests: Double, seconds: [Double], latencyMicros: UInt64) -> RunComparison.Side {
        var side = RunComparison.Side(
            requests: requests, failed: 0, edits: 0, seconds: Double(seconds.count + 2), latency: LatencyHistogram(), perSecond: [])
        for value in seconds {
            var histogram = LatencyHistogram(significantDigits: 2)
            for _ in 0..<Int(value) { histogram.record(microseconds: latencyMicros) }
            side.latency.merge(histogram)
            side.perSecond.append((value, 0, histogram))
        }
        return side
    }

    @Test("a change beyond the tolerance but inside the seconds' spread is noise; a consistent one is a regression")
    func verdicts() {
        let noisy = Self.side(requests: 1_000, seconds: [80, 120, 95, 130, 70, 110, 90, 105], latencyMicros: 1_000)
        let noisier = Self.side(requests: 900, seconds: [75, 115, 85, 120, 60, 100, 95, 90], latencyMicros: 1_000)
        let rows = RunComparison.rows(scenario: "s", operation: nil, noisy, noisier, tolerance: 0.05, metrics: ["requestsPerSecond"])
        #expect(rows.map(\.verdict) == [.noise], "\(rows)")
        let slow = Self.side(requests: 1_000, seconds: [100, 100, 101, 99, 100, 100, 100], latencyMicros: 5_000)
        let fast = Self.side(requests: 1_000, seconds: [100, 100, 100, 100, 101, 99, 100], latencyMicros: 1_000)
        let latency = RunComparison.rows(scenario: "s", operation: nil, fast, slow, tolerance: 0.1, metrics: ["p95", "requestsPerSecond"])
        #expect(latency.first { $0.metric == "p95" }?.verdict == .regression)
        #expect(latency.first { $0.metric == "requestsPerSecond" }?.verdict == .unchanged)
        let reversed = RunComparison.rows(scenario: "s", operation: nil, slow, fast, tolerance: 0.1, metrics: ["p95"])
        #expect(reversed.map(\.verdict) == [.improvement])
    }

    @Test("Cliff's δ: +1 when every candidate value is larger, −1 when smaller, 0 for the same sample, ties count half")
    func cliffsDelta() {
        let low = (1...5).map { (Double($0), 1.0) }
        let high = (6...10).map { (Double($0), 1.0) }
        #expect(RunComparison.cliffsDelta(low, high) == 1)
        #expect(RunComparison.cliffsDelta(high, low) == -1)
        #expect(RunComparison.cliffsDelta(low, low) == 0)
        // b = {2, 3} against a = {1, 2}: pairs (b > a) = 3, (b < a) = 0, ties 1 of 4: δ = 3/4.
        #expect(RunComparison.cliffsDelta([(1, 1), (2, 1)], [(2, 1), (3, 1)]) == 0.75)
        #expect(RunComparison.cliffsDelta([(1, 100), (2, 100)], [(2, 100), (3, 100)]) == 0.75, "weights count as repeats")
    }

    /// A short run (no full seconds) whose requests took `micros`.
    static func shortSide(requests: Double, latencies micros: [UInt64]) -> RunComparison.Side {
        var histogram = LatencyHistogram(significantDigits: 3)
        for value in micros { histogram.record(microseconds: value) }
        return RunComparison.Side(requests: requests, failed: 0, edits: requests, seconds: 2, latency: histogram, perSecond: [])
    }

    @Test(
        "short runs: a 10 % shift over 10,000 requests is significant but a small effect: noise; 50 ms more is a regression; throughput goes by the tolerance"
    )
    func shortRuns() {
        let base = (0..<10_000).map { UInt64(800 + $0 % 1_000) }
        let shifted = Self.shortSide(requests: 8_000, latencies: base.map { $0 * 11 / 10 })
        let baseline = Self.shortSide(requests: 10_000, latencies: base)
        let rows = RunComparison.rows(scenario: "s", operation: nil, baseline, shifted, tolerance: 0.05, metrics: RunComparison.metrics)
        let p50 = try? #require(rows.first { $0.metric == "p50" })
        #expect(p50?.verdict == .noise, "\(rows)")
        #expect((p50?.pValue ?? 1) < 0.01, "significant")
        #expect(abs(p50?.effectSize ?? 1) < RunComparison.largeEffect)
        // No full second: the test cannot speak, the tolerance does (−20 % is beyond 5 %), and the row says so.
        let throughput = rows.first { $0.metric == "requestsPerSecond" }
        #expect(throughput?.verdict == .regression, "\(rows)")
        #expect(throughput?.basis.contains("judged by the tolerance alone") == true)
        #expect(rows.first { $0.metric == "editsPerSecond" }?.verdict == .regression)

        let slow = Self.shortSide(requests: 10_000, latencies: base.map { $0 + 50_000 })
        let latency = RunComparison.rows(scenario: "s", operation: nil, baseline, slow, tolerance: 0.1, metrics: ["p50", "p95", "p99"])
        #expect(latency.map(\.verdict) == [.regression, .regression, .regression], "\(latency)")
        #expect(latency.first?.effectSize == 1)
    }

    @Test("exact Mann–Whitney: 5 seconds against 5 can reach 1 % (p = 2/252), 3 against 3 cannot (p ≥ 0.1); ties are ranked")
    func exactTest() throws {
        let low = (1...5).map(Double.init)
        let high = (6...10).map(Double.init)
        let separated = try #require(RunComparison.exactMannWhitney(low, high))
        #expect(abs(separated.p - 2.0 / 252) < 1e-12, "\(separated)")
        #expect(abs(separated.minimumP - 2.0 / 252) < 1e-12)
        let three = try #require(RunComparison.exactMannWhitney([1, 2, 3], [4, 5, 6]))
        #expect(abs(three.minimumP - 0.1) < 1e-12)
        let same = try #require(RunComparison.exactMannWhitney([1, 2, 3, 4], [1, 2, 3, 4]))
        #expect(same.p == 1)
        let tied = try #require(RunComparison.exactMannWhitney([5, 5, 5], [5, 5, 5]))
        #expect(tied.p == 1 && tied.minimumP == 1, "every split is the same")
        // Interleaved: no evidence at all.
        let mixed = try #require(RunComparison.exactMannWhitney([1, 4, 5, 8], [2, 3, 6, 7]))
        #expect(mixed.p > 0.5)
        #expect(
            RunComparison.exactMannWhitney(Array(repeating: 1, count: 50), Array(repeating: 2, count: 50)) == nil,
            "large samples: the normal approximation")
    }

    /// A run of `seconds.count` full seconds whose requests all took `micros`.
    static func timedSide(seconds: [Double], micros: UInt64) -> RunComparison.Side {
        side(requests: seconds.reduce(0, +), seconds: seconds, latencyMicros: micros)
    }

    @Test("a 6 s pair, the second 3.5× slower at −72 % throughput, is a regression in both (5 seconds against 5 used to be noise)")
    func sixSecondRegression() {
        let before = Self.timedSide(seconds: [980, 1_010, 995, 1_002, 990], micros: 1_400)
        let after = Self.timedSide(seconds: [281, 276, 290, 270, 285], micros: 4_940)
        let rows = RunComparison.rows(scenario: "s", operation: nil, before, after, tolerance: 0.1, metrics: RunComparison.metrics)
        let throughput = rows.first { $0.metric == "requestsPerSecond" }
        #expect(throughput?.verdict == .regression, "\(rows)")
        #expect(abs((throughput?.minimumPValue ?? 1) - 2.0 / 252) < 1e-12, "the smallest attainable p is reported")
        #expect(rows.first { $0.metric == "p50" }?.verdict == .regression)
        #expect(rows.first { $0.metric == "p50" }?.basis.contains("request latencies") == true, "latency is judged on the requests")
    }

    @Test("a 3 s pair at −50 % throughput: no test can reach 1 % with one full second each, so the tolerance flags it")
    func threeSecondThroughput() {
        let before = Self.timedSide(seconds: [1_000], micros: 1_000)
        let after = Self.timedSide(seconds: [500], micros: 1_000)
        let rows = RunComparison.rows(scenario: "s", operation: nil, before, after, tolerance: 0.1, metrics: ["requestsPerSecond"])
        #expect(rows.map(\.verdict) == [.regression], "\(rows)")
        #expect(rows.first?.basis.contains("cannot reach 1 %") == true)
        let same = RunComparison.rows(
            scenario: "s", operation: nil, before, Self.timedSide(seconds: [960], micros: 1_000), tolerance: 0.1, metrics: ["requestsPerSecond"])
        #expect(same.map(\.verdict) == [.unchanged], "within the tolerance")
    }

    /// A 3 s run of a fixed number of VUs: one full second of `requests`, iterations that took `micros`.
    static func closedSide(requests: Double, iterations micros: [UInt64]) -> RunComparison.Side {
        var side = timedSide(seconds: [requests], micros: 1_000)
        side.seconds = 3
        side.requests = requests * 3
        side.edits = side.requests
        side.perSecond = side.perSecond.map { ($0.requests, $0.requests, $0.latency) }
        var iterations = LatencyHistogram(significantDigits: 3)
        for value in micros { iterations.record(microseconds: value) }
        side.iterations = iterations
        side.closedModel = true
        return side
    }

    @Test(
        "a short run of fixed VUs: −13 % throughput from its edges, iterations as long as before, is noise; iterations twice as long at −50 % are a regression"
    )
    func shortClosedModelThroughput() {
        let times = (0..<3_000).map { UInt64(900 + ($0 * 7_919) % 400) }
        let before = Self.closedSide(requests: 1_000, iterations: times)
        // The same iterations (in another order), fewer of them counted: the run's first and last moments differed.
        let edges = Self.closedSide(requests: 870, iterations: times.reversed())
        let rows = RunComparison.rows(scenario: "s", operation: nil, before, edges, tolerance: 0.1, metrics: ["requestsPerSecond"])
        #expect(rows.map(\.verdict) == [.noise], "\(rows)")
        #expect(rows.first?.basis.contains("throughput follows iteration time") == true, "\(rows)")
        #expect(rows.first?.basis.contains("cannot reach 1 % (smallest p ") == true, "the per-second test's smallest p is still given: \(rows)")

        let slower = Self.closedSide(requests: 500, iterations: times.map { $0 * 2 })
        let regression = RunComparison.rows(
            scenario: "s", operation: nil, before, slower, tolerance: 0.1, metrics: ["requestsPerSecond", "editsPerSecond"])
        #expect(regression.map(\.verdict) == [.regression, .regression], "\(regression)")
        #expect((regression.first?.effectSize ?? 0) < -0.9, "as rates, the candidate's are lower")

        // Fewer requests while the iterations got faster: no single cause explains it, so the test does not flag it.
        let contradictory = Self.closedSide(requests: 500, iterations: times.map { $0 / 2 })
        #expect(
            RunComparison.rows(scenario: "s", operation: nil, before, contradictory, tolerance: 0.1, metrics: ["requestsPerSecond"]).map(\.verdict)
                == [.noise])

        // An arrival-rate scenario's throughput is its schedule's: too few seconds, and the tolerance decides.
        var open = slower
        open.closedModel = false
        let byTolerance = RunComparison.rows(scenario: "s", operation: nil, before, open, tolerance: 0.1, metrics: ["requestsPerSecond"])
        #expect(byTolerance.map(\.verdict) == [.regression])
        #expect(byTolerance.first?.basis.contains("judged by the tolerance alone") == true)
    }

    @Test("the Markdown says when the tolerance alone decided, and the smallest p the test could reach")
    func toleranceNote() throws {
        let side = Self.timedSide(seconds: [1_000, 1_000], micros: 1_000)
        let faster = Self.timedSide(seconds: [2_000, 2_000], micros: 1_000)
        let comparison = RunComparison(
            baseline: "a", candidate: "b", tolerance: 0.1,
            rows: RunComparison.rows(scenario: "s", operation: nil, side, faster, tolerance: 0.1, metrics: ["requestsPerSecond"]))
        #expect(!comparison.regressed)
        #expect(comparison.markdown.contains("# Comparison: no regression"))
        #expect(comparison.markdown.contains("| improvement |"), "\(comparison.markdown)")
        #expect(comparison.markdown.contains("smallest p 0.3333"), "\(comparison.markdown)")
    }
}
