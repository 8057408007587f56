import FeatureModel
import LoadRunner
import Testing

@Suite struct USLFitTests {
    static func synthetic(lambda: Double, sigma: Double, kappa: Double, noise: Double, seed: UInt64) -> [USLFit.Point] {
        var random = SplitMix64(seed: seed)
        let concurrencies: [Double] = [1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128]
        return concurrencies.map { (n: Double) -> USLFit.Point in
            let denominator: Double = 1 + sigma * (n - 1) + kappa * n * (n - 1)
            let exact: Double = lambda * n / denominator
            let factor = 1 + noise * (2 * random.nextUnit() - 1)
            return USLFit.Point(concurrency: n, throughput: exact * factor)
        }
    }

    @Test(
        "recovers λ, σ and κ within 5 % from noisy data of known parameters",
        arguments: [
            (1_000.0, 0.05, 0.0005), (250.0, 0.2, 0.002), (4_000.0, 0.02, 0.0001), (90.0, 0.1, 0.001),
        ])
    func recovers(lambda: Double, sigma: Double, kappa: Double) throws {
        for seed: UInt64 in 1...5 {
            let points = Self.synthetic(lambda: lambda, sigma: sigma, kappa: kappa, noise: 0.01, seed: seed)
            let fit = try #require(USLFit.fit(points))
            #expect(abs(fit.lambda - lambda) / lambda < 0.05, "λ \(fit.lambda) for \(lambda), seed \(seed)")
            #expect(abs(fit.sigma - sigma) / sigma < 0.05, "σ \(fit.sigma) for \(sigma), seed \(seed)")
            #expect(abs(fit.kappa - kappa) / kappa < 0.05, "κ \(fit.kappa) for \(kappa), seed \(seed)")
            let peak = ((1 - sigma) / kappa).squareRoot()
            #expect(abs((fit.peakConcurrency ?? 0) - peak) / peak < 0.05)
            #expect(fit.rSquared > 0.98)
        }
    }

    @Test("exact data is fitted exactly; linear scaling has no peak; too few points give no fit")
    func edges() throws {
        let exact = Self.synthetic(lambda: 500, sigma: 0.08, kappa: 0.0003, noise: 0, seed: 1)
        let fit = try #require(USLFit.fit(exact))
        #expect(abs(fit.lambda - 500) < 1e-6 * 500 && abs(fit.sigma - 0.08) < 1e-6 && abs(fit.kappa - 0.0003) < 1e-8)
        let linear = [1.0, 2, 4, 8].map { USLFit.Point(concurrency: $0, throughput: 100 * $0) }
        let straight = try #require(USLFit.fit(linear))
        #expect(abs(straight.lambda - 100) < 1e-6 && straight.peakConcurrency == nil && straight.peakThroughput == nil)
        #expect(USLFit.fit([USLFit.Point(concurrency: 1, throughput: 10), USLFit.Point(concurrency: 2, throughput: 19)]) == nil)
        #expect(USLFit.fit(linear.map { USLFit.Point(concurrency: $0.concurrency, throughput: 0) }) == nil)
    }

    @Test("Little's law: N = X·R holds for a saturated closed loop and not when the VUs idle")
    func littlesLaw() {
        #expect(LittlesLawCheck(concurrency: 8, throughput: 400, responseTime: 0.02).holds())
        let idle = LittlesLawCheck(concurrency: 8, throughput: 400, responseTime: 0.01)
        #expect(!idle.holds() && abs(idle.ratio - 0.5) < 1e-9)
    }
}
