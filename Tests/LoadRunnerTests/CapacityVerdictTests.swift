import Foundation
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

    /// A vus sweep's capacity section with `points` (vus, iterations/s) fitted as the runner fits them.
    static func fitted(_ points: [(Int, Double)]) -> (CapacityResult, USLFit?) {
        let fit = USLFit.fit(points.map { USLFit.Point(concurrency: Double($0.0), throughput: $0.1) })
        let result = CapacityResult(
            sweep: "vus", parameter: "vus", points: points.map { Self.point($0.0, perSecond: $0.1, iterations: Int($0.1) * 10, p95: 10, slo: nil) },
            fit: fit, sloMilliseconds: nil)
        return (result, fit)
    }

    @Test("a poor USL fit names no peak and says why; a good one names it")
    func poorFitNamesNoPeak() throws {
        // Scattered points, as a noisy sweep gives: the law cannot describe them.
        let (poor, poorFit) = Self.fitted([(1, 50), (2, 140), (4, 120), (8, 260), (16, 150), (24, 300), (32, 170)])
        let fit = try #require(poorFit)
        #expect(fit.rSquared < USLFit.minimumRSquared, "R² \(fit.rSquared)")
        let refusal = try #require(fit.peakRefusal)
        #expect(refusal.contains("R² = ") && refusal.contains("below 0.9"), "\(refusal)")
        #expect(fit.namedPeakConcurrency == nil)
        let markdown = ReportRenderer.capacityMarkdown(poor)
        #expect(
            markdown.contains("No peak or ceiling named: R² = ") && !markdown.contains("Peak at N*") && !markdown.contains("levels off"),
            "\(markdown)")
        #expect(markdown.contains(String(format: "R² = %.3f", fit.rSquared)), "goodness of fit printed: \(markdown)")

        let good = [1, 2, 4, 8, 16, 24, 32].map { (n: Int) -> (Int, Double) in
            let count = Double(n)
            let denominator: Double = 1 + 0.08 * (count - 1) + 0.0003 * count * (count - 1)
            return (n, 500 * count / denominator)
        }
        let (clean, cleanFit) = Self.fitted(good)
        #expect(cleanFit?.peakRefusal == nil && cleanFit?.namedPeakConcurrency != nil)
        #expect(ReportRenderer.capacityMarkdown(clean).contains("Peak at N* = "))
    }

    @Test("a measured point above the fit's predicted peak contradicts it: no peak named, the point given")
    func contradictedPeak() throws {
        // λ = 100, σ = 0.1, κ = 0.01: the peak is at N* = √(0.9 / 0.01) ≈ 9.5 with about 398/s; 900/s was measured at 9.
        let fit = USLFit(
            lambda: 100, sigma: 0.1, kappa: 0.01, rSquared: 0.95,
            points: [USLFit.Point(concurrency: 1, throughput: 100), USLFit.Point(concurrency: 9, throughput: 900)])
        let top = try #require(fit.peakThroughput)
        #expect(top < 900)
        let refusal = try #require(fit.judgedRefusal())
        #expect(refusal.contains("the measured 900 iterations/s at N = 9 is above the"), "\(refusal)")
        // Within the tolerance the peak stands.
        let close = USLFit(
            lambda: 100, sigma: 0.1, kappa: 0.01, rSquared: 0.95,
            points: [USLFit.Point(concurrency: 1, throughput: 100), USLFit.Point(concurrency: 9, throughput: top * 1.04)])
        #expect(close.judgedRefusal() == nil)
    }
}
