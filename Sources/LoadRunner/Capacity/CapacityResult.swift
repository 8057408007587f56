/// What a sweep measured, point by point, and what it says about capacity: computed from a saved run's records and
/// metrics whenever it is rendered (like every rate and percentile of the report).
package struct CapacityResult: Sendable, Equatable {
    package struct Point: Sendable, Equatable {
        package var value: Int
        package var scenario: String
        var iterationsPerSecond: Double
        package var requestsPerSecond: Double
        package var editsPerSecond: Double
        package var p95Milliseconds: Double
        /// Mean iteration time in seconds (the response time R of Little's law).
        var meanIterationSeconds: Double
        package var failedRequests: Int
        /// Iterations that ran.
        package var iterations = 0
        /// Iterations the executor could not start (no free VU): what was offered but not achieved.
        package var droppedIterations = 0
        /// N against X·R (X requests/s, R their mean time): N is the VUs of a vus sweep; for an arrival rate it is
        /// X·R itself, the concurrency the point kept busy, which is what the fit uses.
        package var littlesLaw: LittlesLawCheck?
        /// Whether p95 stayed within the sweep's SLO (nil without one).
        var withinSLO: Bool?

        /// Iterations per second offered: those that ran and those dropped.
        var offeredPerSecond: Double {
            iterationsPerSecond * (1 + Double(droppedIterations) / Double(max(iterations, 1)))
        }

        /// The share of offered iterations that were dropped.
        var droppedShare: Double {
            let offered = iterations + droppedIterations
            return offered > 0 ? Double(droppedIterations) / Double(offered) : 0
        }

        /// Whether the offered load was carried: at most ``CapacityResult/droppedTolerance`` of it dropped.
        var achieved: Bool { droppedShare <= CapacityResult.droppedTolerance }

        /// Whether the point counts as usable: the load it was offered was carried, and p95 held the SLO.
        package var usable: Bool { withinSLO == true && achieved }
    }

    /// The largest share of offered iterations a point may drop and still count as carrying its load.
    static let droppedTolerance = 0.01
    /// How far X·R ÷ N may stray from 1 before a point is flagged: the VUs spent time outside the service.
    static let littlesLawTolerance = 0.2

    package var sweep: String
    package var parameter: String
    package var points: [Point]
    /// The Universal Scalability Law fitted to concurrency against iterations per second (vus sweeps, and rate
    /// sweeps with concurrency from Little's law); nil for batch-size sweeps or when it cannot be fitted.
    package var fit: USLFit?
    package var sloMilliseconds: Double?

    /// The point with the highest throughput that was usable: its offered load carried and its p95 within the SLO.
    var usableCapacity: Point? {
        guard sloMilliseconds != nil else { return nil }
        return points.filter(\.usable).max { $0.iterationsPerSecond < $1.iterationsPerSecond }
    }

    /// Whether every point held the SLO and carried its load: the sweep never found the limit, so usable capacity
    /// is a lower bound.
    var limitNotReached: Bool {
        !points.isEmpty && points.allSatisfy(\.usable)
    }

    /// The capacity verdict in one sentence, for every output; nil without an SLO.
    package var verdict: String? {
        guard let slo = sloMilliseconds else { return nil }
        let limit = "p95 ≤ \(Figures.number(slo)) ms and at most \(Figures.number(Self.droppedTolerance * 100)) % of iterations dropped"
        guard let usable = usableCapacity else { return "No point was usable (\(limit))." }
        let rate = "\(Figures.number(usable.iterationsPerSecond)) iterations/s (\(Figures.number(usable.requestsPerSecond)) req/s)"
        if limitNotReached {
            return
                "Usable capacity (\(limit)): at least \(parameter) \(usable.value), \(rate): the SLO was never reached; sweep further to find the limit."
        }
        return "Usable capacity (\(limit)): \(parameter) \(usable.value), \(rate)."
    }
}

extension RunReport {
    /// One result per sweep in the run, its points in the order they ran.
    package var capacity: [CapacityResult] {
        // Most runs have no sweep: then no view is worth computing (each walks every scenario's histograms).
        guard scenarios.contains(where: { $0.sweepPoint != nil }) else { return [] }
        let views = Dictionary(uniqueKeysWithValues: self.views.map { ($0.name, $0) })
        var order: [String] = []
        var points: [String: [(SweepPoint, ScenarioView)]] = [:]
        for record in scenarios {
            guard let point = record.sweepPoint, let view = views[record.name] else { continue }
            if points[point.sweep] == nil { order.append(point.sweep) }
            points[point.sweep, default: []].append((point, view))
        }
        return order.map { name in
            let entries = points[name] ?? []
            let slo = entries.first?.0.sloMilliseconds
            let parameter = entries.first?.0.parameter ?? ""
            let measured = entries.map { point, view -> CapacityResult.Point in
                let seconds = max(view.record.durationSeconds, 1e-9)
                let throughput = Double(view.iterations) / seconds
                // Little's law on the requests: X requests/s times R, their mean time, is how many were in flight on
                // average. With N VUs and no think time that is N when the VUs always wait on the service.
                let requestTime = view.latency.mean / 1000
                let concurrency: Double? =
                    parameter == "vus" ? Double(point.value) : parameter == "rate" ? view.requestsPerSecond * requestTime : nil
                return CapacityResult.Point(
                    value: point.value, scenario: view.name, iterationsPerSecond: throughput, requestsPerSecond: view.requestsPerSecond,
                    editsPerSecond: view.editsPerSecond, p95Milliseconds: view.latency.p95, meanIterationSeconds: view.iterationLatency.mean / 1000,
                    failedRequests: view.failedRequests, iterations: view.iterations, droppedIterations: view.droppedIterations,
                    littlesLaw: concurrency.map { LittlesLawCheck(concurrency: $0, throughput: view.requestsPerSecond, responseTime: requestTime) },
                    withinSLO: slo.map { view.latency.p95 <= $0 })
            }
            var fit: USLFit?
            if parameter == "vus" || parameter == "rate" {
                fit = USLFit.fit(
                    measured.compactMap { point in
                        point.littlesLaw.map { USLFit.Point(concurrency: $0.concurrency, throughput: point.iterationsPerSecond) }
                    })
            }
            return CapacityResult(sweep: name, parameter: parameter, points: measured, fit: fit, sloMilliseconds: slo)
        }
    }
}
