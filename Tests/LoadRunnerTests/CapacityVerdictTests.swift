import Testing

@testable import LoadRunner

/// Usable capacity answers the capacity planner's question: the busiest point that carried the load it was offered
/// and held the SLO; never one that dropped what it could not carry.
@Suite struct CapacityVerdictTests {
    static func point(_ value: Int, perSecond: Double, iterations: Int, dropped: Int = 0, p95: Double, slo: Double? = 60) -> CapacityResult.Point {
        CapacityResult.Point(
            value: value, scenario: "s[rate=\(value)]", iterationsPerSecond: perSecond, requestsPerSecond: perSecond, editsPerSecond: 0,
            p95Milliseconds: p95, meanIterationSeconds: 0.01, failedRequests: 0, iterations: iterations, droppedIterations: dropped,
            littlesLaw: nil, withinSLO: slo.map { p95 <= $0 })
    }

    @Test("a point that dropped 1,005 of its iterations is not usable, however fast its p95; the table shows offered, achieved and dropped")
    func droppedPointIsNotUsable() throws {
        let result = CapacityResult(
            sweep: "rates", parameter: "rate",
            points: [
                Self.point(1600, perSecond: 1600, iterations: 16_000, p95: 20),
                Self.point(3200, perSecond: 2_900, iterations: 28_995, dropped: 1_005, p95: 40),
            ],
            fit: nil, sloMilliseconds: 60)
        #expect(result.usableCapacity?.value == 1600)
        #expect(result.points[1].achieved == false)
        let verdict = try #require(result.verdict)
        #expect(verdict.contains("rate 1600") && !verdict.contains("rate 3200"), "\(verdict)")
        #expect(!verdict.contains("at least"), "the limit was found")
        let markdown = ReportRenderer.capacityMarkdown(result)
        #expect(markdown.contains("| offered iterations/s | achieved iterations/s | dropped |"), "\(markdown)")
        #expect(markdown.contains("| 1005 (3.35 %) |"), "\(markdown)")
        #expect(markdown.contains("no: 3.35 % dropped"), "\(markdown)")
    }

    @Test("when every point carried its load within the SLO, usable capacity is a lower bound and says so")
    func sloNeverReached() throws {
        let result = CapacityResult(
            sweep: "vus", parameter: "vus",
            points: [Self.point(1, perSecond: 500, iterations: 5_000, p95: 5), Self.point(4, perSecond: 1_800, iterations: 18_000, p95: 9)],
            fit: nil, sloMilliseconds: 60)
        let verdict = try #require(result.verdict)
        #expect(verdict.contains("at least vus 4") && verdict.contains("the SLO was never reached"), "\(verdict)")
    }

    @Test("no usable point is said plainly; no SLO, no verdict")
    func noUsablePoint() {
        let over = CapacityResult(
            sweep: "v", parameter: "vus", points: [Self.point(8, perSecond: 100, iterations: 1_000, p95: 90)], fit: nil, sloMilliseconds: 60)
        #expect(over.verdict?.hasPrefix("No point was usable (p95 ≤ 60 ms") == true)
        let none = CapacityResult(
            sweep: "v", parameter: "vus", points: [Self.point(8, perSecond: 100, iterations: 1_000, p95: 90, slo: nil)], fit: nil,
            sloMilliseconds: nil)
        #expect(none.verdict == nil)
    }

    @Test("Little's law flags a point only beyond its stated tolerance")
    func littlesLawTolerance() {
        let close = LittlesLawCheck(concurrency: 8, throughput: 850, responseTime: 0.008)  // X·R = 6.8: 15 % off
        let far = LittlesLawCheck(concurrency: 8, throughput: 500, responseTime: 0.008)  // X·R = 4: 50 % off
        #expect(close.holds(tolerance: CapacityResult.littlesLawTolerance))
        #expect(!far.holds(tolerance: CapacityResult.littlesLawTolerance))
    }
}
