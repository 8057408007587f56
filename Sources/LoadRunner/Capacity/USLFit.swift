/// The Universal Scalability Law fitted to measured throughput: X(N) = λN / (1 + σ(N−1) + κN(N−1)).
///
/// λ is the throughput of one unit of concurrency, σ the contention (the serial fraction, Amdahl's law) and κ the
/// coherency cost (crosstalk between units, which makes throughput fall past a peak). Fitted by least squares on
/// relative residuals, so a point at 10 req/s weighs as much as one at 10,000: Gunther's linearisation
/// N/X = 1/λ + (σ/λ)(N−1) + (κ/λ)N(N−1) gives the starting point, Levenberg–Marquardt refines it, σ kept in [0, 1)
/// and κ ≥ 0. Pure; no state.
package struct USLFit: Sendable, Codable, Equatable {
    package var lambda: Double
    package var sigma: Double
    package var kappa: Double
    /// Coefficient of determination of the fit on the measured throughput (1 is a perfect fit).
    package var rSquared: Double
    /// The points fitted, as (concurrency, throughput).
    package var points: [Point]
    /// Why the fit names no peak or ceiling, when it does not: R² below ``minimumRSquared``, or a measured point
    /// above the most the fit predicts. A reader must not plan on a peak the law does not support.
    var peakRefusal: String?

    /// The least R² at which a fit names a peak or a ceiling.
    static let minimumRSquared = 0.9
    /// How far above the predicted peak (or ceiling) a measured point may lie, as a share, and the fit still stand.
    static let contradictionTolerance = 0.05

    package struct Point: Sendable, Codable, Equatable {
        package var concurrency: Double
        package var throughput: Double

        package init(concurrency: Double, throughput: Double) {
            self.concurrency = concurrency
            self.throughput = throughput
        }
    }

    /// The modelled throughput at concurrency `n`.
    package func throughput(at n: Double) -> Double {
        Self.model(n, lambda, sigma, kappa)
    }

    /// ``peakConcurrency`` unless the fit refuses to name one (``peakRefusal``).
    var namedPeakConcurrency: Double? { peakRefusal == nil ? peakConcurrency : nil }

    /// The concurrency of peak throughput, √((1−σ)/κ); nil when κ is 0 (throughput only levels off). What the
    /// parameters give, whether or not the fit is good enough to plan on: see ``peakRefusal``.
    package var peakConcurrency: Double? {
        kappa > 1e-12 ? ((1 - sigma) / kappa).squareRoot() : nil
    }

    /// The modelled throughput at ``peakConcurrency``, or the asymptote λ/σ when there is no peak (nil when σ is
    /// 0 too: linear scaling, no limit in sight).
    package var peakThroughput: Double? {
        if let peak = peakConcurrency { return throughput(at: peak) }
        return sigma > 1e-12 ? lambda / sigma : nil
    }

    static func model(_ n: Double, _ lambda: Double, _ sigma: Double, _ kappa: Double) -> Double {
        lambda * n / (1 + sigma * (n - 1) + kappa * n * (n - 1))
    }

    /// Fits the law to `points`; nil with fewer than three distinct concurrencies or non-positive values.
    package static func fit(_ points: [Point]) -> USLFit? {
        let usable = points.filter { $0.concurrency > 0 && $0.throughput > 0 && $0.concurrency.isFinite && $0.throughput.isFinite }
        guard Set(usable.map(\.concurrency)).count >= 3 else { return nil }
        var parameters = start(usable)
        var cost = Self.cost(usable, parameters)
        var damping = 1e-3
        for _ in 0..<500 {
            let (normal, gradient) = normalEquations(usable, parameters)
            var improved = false
            while damping < 1e12 {
                var system = normal
                for i in 0..<3 { system[i][i] += damping * max(normal[i][i], 1e-12) }
                guard let step = solve(system, gradient.map { -$0 }) else {
                    damping *= 10
                    continue
                }
                let candidate = clamp([parameters[0] + step[0], parameters[1] + step[1], parameters[2] + step[2]])
                let candidateCost = Self.cost(usable, candidate)
                if candidateCost < cost {
                    let converged = (cost - candidateCost) <= 1e-14 * max(cost, 1e-300)
                    parameters = candidate
                    cost = candidateCost
                    damping = max(damping / 10, 1e-12)
                    improved = !converged
                    break
                }
                damping *= 10
            }
            if !improved { break }
        }
        let mean = usable.reduce(0) { $0 + $1.throughput } / Double(usable.count)
        let total = usable.reduce(0) { $0 + ($1.throughput - mean) * ($1.throughput - mean) }
        let residual = usable.reduce(0) { sum, point in
            let error = point.throughput - model(point.concurrency, parameters[0], parameters[1], parameters[2])
            return sum + error * error
        }
        var fit = USLFit(
            lambda: parameters[0], sigma: parameters[1], kappa: parameters[2],
            rSquared: total > 0 ? 1 - residual / total : 1, points: usable.sorted { $0.concurrency < $1.concurrency })
        fit.peakRefusal = fit.judgedRefusal()
        return fit
    }

    /// Why no peak or ceiling may be named from these parameters and points (what ``fit(_:)`` stores as
    /// ``peakRefusal``); nil when one may, or when the law predicts none.
    func judgedRefusal() -> String? {
        guard peakThroughput != nil else { return nil }
        if rSquared < Self.minimumRSquared {
            return "R² = \(Figures.significant(rSquared, digits: 3)) is below \(Figures.number(Self.minimumRSquared)): "
                + "the law does not describe these points well enough to name a peak or a ceiling"
        }
        if let top = peakThroughput, let best = points.max(by: { $0.throughput < $1.throughput }),
            best.throughput > top * (1 + Self.contradictionTolerance)
        {
            return "the measured \(Figures.number(best.throughput)) iterations/s at N = \(Figures.number(best.concurrency)) is above "
                + "the \(Figures.number(top)) the fit predicts as the most: the points contradict it"
        }
        return nil
    }

    /// Gunther's linear form, by ordinary least squares; falls back to λ = the best X/N.
    private static func start(_ points: [Point]) -> [Double] {
        let rows = points.map { [1, $0.concurrency - 1, $0.concurrency * ($0.concurrency - 1)] }
        let targets = points.map { $0.concurrency / $0.throughput }
        var normal = Array(repeating: Array(repeating: 0.0, count: 3), count: 3)
        var right = [0.0, 0.0, 0.0]
        for (row, target) in zip(rows, targets) {
            for i in 0..<3 {
                right[i] += row[i] * target
                for j in 0..<3 { normal[i][j] += row[i] * row[j] }
            }
        }
        let fallback = [points.map { $0.throughput / $0.concurrency }.max() ?? 1, 0.01, 0.0001]
        guard let solution = solve(normal, right), solution[0] > 0 else { return fallback }
        let lambda = 1 / solution[0]
        return clamp([lambda, solution[1] * lambda, solution[2] * lambda])
    }

    private static func clamp(_ parameters: [Double]) -> [Double] {
        [max(parameters[0], 1e-12), min(max(parameters[1], 0), 0.999_999), max(parameters[2], 0)]
    }

    /// Σ((f − X)/X)².
    private static func cost(_ points: [Point], _ p: [Double]) -> Double {
        points.reduce(0) { sum, point in
            let relative = (model(point.concurrency, p[0], p[1], p[2]) - point.throughput) / point.throughput
            return sum + relative * relative
        }
    }

    /// JᵀJ and Jᵀr for the relative residuals.
    private static func normalEquations(_ points: [Point], _ p: [Double]) -> ([[Double]], [Double]) {
        var normal = Array(repeating: Array(repeating: 0.0, count: 3), count: 3)
        var gradient = [0.0, 0.0, 0.0]
        for point in points {
            let n = point.concurrency
            let denominator = 1 + p[1] * (n - 1) + p[2] * n * (n - 1)
            let value = p[0] * n / denominator
            let residual = (value - point.throughput) / point.throughput
            let jacobian = [
                n / denominator / point.throughput,
                -p[0] * n * (n - 1) / (denominator * denominator) / point.throughput,
                -p[0] * n * n * (n - 1) / (denominator * denominator) / point.throughput,
            ]
            for i in 0..<3 {
                gradient[i] += jacobian[i] * residual
                for j in 0..<3 { normal[i][j] += jacobian[i] * jacobian[j] }
            }
        }
        return (normal, gradient)
    }

    /// Solves a 3×3 system by Gaussian elimination with partial pivoting; nil when singular.
    static func solve(_ matrix: [[Double]], _ vector: [Double]) -> [Double]? {
        var a = matrix
        var b = vector
        let n = b.count
        for column in 0..<n {
            guard let pivot = (column..<n).max(by: { abs(a[$0][column]) < abs(a[$1][column]) }),
                abs(a[pivot][column]) > 1e-300
            else { return nil }
            a.swapAt(column, pivot)
            b.swapAt(column, pivot)
            for row in (column + 1)..<n {
                let factor = a[row][column] / a[column][column]
                for k in column..<n { a[row][k] -= factor * a[column][k] }
                b[row] -= factor * b[column]
            }
        }
        var x = Array(repeating: 0.0, count: n)
        for row in stride(from: n - 1, through: 0, by: -1) {
            var sum = b[row]
            for k in (row + 1)..<n { sum -= a[row][k] * x[k] }
            x[row] = sum / a[row][row]
        }
        return x.allSatisfy(\.isFinite) ? x : nil
    }
}

/// Little's law on one measured point: the concurrency in the system N equals throughput X times response time R.
///
/// For a closed-model point (N virtual users, no think time) `N ≈ X·R` must hold; when X·R falls well short of N,
/// the VUs spent time outside the service's requests: in the generator, the network or think time, and the point
/// measures them rather than the service.
package struct LittlesLawCheck: Sendable, Codable, Equatable {
    package var concurrency: Double
    package var throughput: Double
    /// Mean response time in seconds.
    package var responseTime: Double
    /// X·R: the concurrency the service actually saw.
    package var busy: Double { throughput * responseTime }
    /// X·R ÷ N: 1 when every VU was always waiting on the service.
    package var ratio: Double { concurrency > 0 ? busy / concurrency : 0 }
    /// Whether X·R is within `tolerance` (default 10 %) of N.
    package func holds(tolerance: Double = 0.1) -> Bool { abs(ratio - 1) <= tolerance }

    package init(concurrency: Double, throughput: Double, responseTime: Double) {
        self.concurrency = concurrency
        self.throughput = throughput
        self.responseTime = responseTime
    }
}
