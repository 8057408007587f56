@testable import LoadRunner
import Testing

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
}
