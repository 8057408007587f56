import FeatureModel
public import FeatureServiceClient
public import Foundation

/// Something the runner reports while it works, for a progress display.
public enum RunEvent: Sendable {
    case metadataLoaded(service: String, layers: [String])
    case scenarioStarted(ScenarioSpec)
    case scenarioFinished(ScenarioResult)
}

/// Runs a ``ScenarioPlan`` against a feature service and returns the ``RunReport``.
///
/// Scenarios run one after another, each as its own ``ScenarioExecution``. The runner neither knows nor cares
/// whether the service is the embedded local one or a live one: it only has a URL and a transport.
///
/// ```swift
/// let runner = ScenarioRunner(plan: plan, planFile: path, serviceURL: url, target: info, transport: transport)
/// let report = try await runner.run()
/// ```
public struct ScenarioRunner<C: Clock<Duration>>: Sendable {
    public let plan: ScenarioPlan
    public let planFile: String
    public let serviceURL: String
    public let target: RunReport.TargetInfo
    public let transport: any HTTPTransport
    public let clock: C
    public let toolVersion: String
    private let wallClock: @Sendable () -> Date

    public init(
        plan: ScenarioPlan, planFile: String, serviceURL: String, target: RunReport.TargetInfo,
        transport: any HTTPTransport, clock: C, toolVersion: String, wallClock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.plan = plan
        self.planFile = planFile
        self.serviceURL = serviceURL
        self.target = target
        self.transport = transport
        self.clock = clock
        self.toolVersion = toolVersion
        self.wallClock = wallClock
    }

    /// Loads the service's metadata, runs every scenario, verifies, and evaluates the gates.
    /// - Parameter onEvent: Called as scenarios start and finish; from the calling task.
    /// - Returns: The report; its verdict says whether every gate passed. When the task is cancelled (Ctrl-C) the
    ///   report holds what ran so far and its verdict fails as interrupted.
    /// - Throws: ``LoadRunnerError`` when the service's metadata cannot be loaded or a scenario names a layer the
    ///   service lacks; `CancellationError` when cancelled before the metadata was loaded.
    public func run(onEvent: @Sendable (RunEvent) -> Void = { _ in }) async throws -> RunReport {
        let startedAt = wallClock()
        let service = FeatureService(url: serviceURL, transport: transport)
        let info: ServiceInfo
        do {
            info = try await service.load()
        } catch {
            throw LoadRunnerError("could not load the feature service at \(serviceURL): \(error)")
        }
        let all = info.layers + info.tables
        onEvent(.metadataLoaded(service: serviceURL, layers: all.map { "\($0.id) \($0.name)" }))
        var layerInfos: [Int: LayerInfo] = [:]
        for spec in plan.scenarios where layerInfos[spec.layer] == nil {
            guard all.contains(where: { $0.id == spec.layer }) else {
                let known = all.map { "\($0.id) (\($0.name))" }.joined(separator: ", ")
                throw LoadRunnerError(
                    "scenario '\(spec.name)' edits layer \(spec.layer), which \(serviceURL) does not have; its layers and tables: \(known)")
            }
            layerInfos[spec.layer] = try await service.layerInfo(id: spec.layer)
        }
        for spec in plan.scenarios where spec.clientGlobalIds && layerInfos[spec.layer]?.globalIdField == nil {
            throw LoadRunnerError(
                "scenario '\(spec.name)' sets clientGlobalIds, but layer \(spec.layer) of \(serviceURL) has no GlobalID field; remove clientGlobalIds or pick a layer with GlobalIDs")
        }

        var results: [ScenarioResult] = []
        var indexBase = 0
        for spec in plan.scenarios {
            if Task.isCancelled { break }
            onEvent(.scenarioStarted(spec))
            let layer = service.layer(id: spec.layer)
            let countBefore = plan.verify ? try await layer.count() : 0
            let execution = ScenarioExecution(
                spec: spec, layer: layer, generator: FeatureGenerator(layer: layerInfos[spec.layer]!, seed: plan.seed),
                clock: clock, indexBase: indexBase)
            indexBase += spec.plannedEdits
            let outcome = await execution.run()
            // An interrupted scenario is reported as far as it got; its verification would need the network
            // requests that cancellation just stopped.
            let verification =
                plan.verify && !Task.isCancelled ? try await verify(outcome, layer: layer, countBefore: countBefore) : nil
            let result = Self.result(spec: spec, outcome: outcome, verification: verification)
            results.append(result)
            onEvent(.scenarioFinished(result))
        }
        let comparisons = Self.compare(plan.comparisons, results: results)
        var verdict = Self.verdict(results: results, comparisons: comparisons, maxFailedEditRate: plan.maxFailedEditRate)
        let interrupted = results.contains { $0.stopReason == .cancelled } || results.count < plan.scenarios.count
        if interrupted {
            verdict.passed = false
            verdict.failures.insert(
                "the run was interrupted: \(results.filter { $0.stopReason != .cancelled }.count) of \(plan.scenarios.count) scenarios completed",
                at: 0)
        }
        return RunReport(
            tool: .init(name: "featureload", version: toolVersion),
            plan: .init(
                name: plan.name, file: planFile, description: plan.description, seed: plan.seed,
                maxFailedEditRate: plan.maxFailedEditRate),
            target: target, machine: Self.machine(), startedAt: Self.iso8601(startedAt),
            finishedAt: Self.iso8601(wallClock()), scenarios: results, comparisons: comparisons, verdict: verdict)
    }

    /// Checks by query that the service holds each reported object ID once, and that the layer grew by exactly
    /// the number of adds reported (this assumes nobody else writes to the layer during the run).
    private func verify(_ outcome: ScenarioOutcome, layer: FeatureLayerClient, countBefore: Int) async throws -> Verification {
        let unique = Array(Set(outcome.addedObjectIds)).sorted()
        var found = 0
        var start = 0
        while start < unique.count {
            let chunk = Array(unique[start..<min(start + 500, unique.count)])
            found += try await layer.count(objectIds: chunk)
            start += chunk.count
        }
        let countAfter = try await layer.count()
        let duplicates = outcome.addedObjectIds.count - unique.count
        let failedRequestEdits = outcome.metrics.failedRequests > 0 ? outcome.metrics.editsFailed : 0
        var notes: [String] = []
        if duplicates > 0 { notes.append("\(duplicates) object IDs were reported for more than one add") }
        if found != unique.count { notes.append("\(unique.count - found) reported adds are missing from the service") }
        let growth = countAfter - countBefore
        if growth != unique.count {
            notes.append(
                "the layer grew by \(growth) rows but \(unique.count) adds were reported"
                    + (failedRequestEdits > 0 ? " (\(failedRequestEdits) edits were in failed requests and may have been applied)" : "")
                    + "; another writer during the run also changes the count")
        }
        return Verification(
            reportedAdded: outcome.addedObjectIds.count, foundByObjectId: found, duplicateObjectIds: duplicates,
            layerCountBefore: countBefore, layerCountAfter: countAfter, editsInFailedRequests: failedRequestEdits,
            passed: notes.isEmpty, notes: notes)
    }

    static func result(spec: ScenarioSpec, outcome: ScenarioOutcome, verification: Verification?) -> ScenarioResult {
        let seconds = max(outcome.elapsed.seconds, 1e-9)
        return ScenarioResult(
            name: spec.name, executor: spec.executor.rawValue, operation: spec.operation.rawValue, layer: spec.layer,
            vus: spec.vus, iterations: spec.iterations, batchSize: spec.batchSize,
            iterationsStarted: outcome.iterationsStarted, stopReason: outcome.stopReason, durationSeconds: seconds,
            metrics: outcome.metrics, requestsPerSecond: Double(outcome.metrics.requests) / seconds,
            editsPerSecond: Double(outcome.metrics.editsSucceeded) / seconds,
            latencyMilliseconds: LatencySummary(outcome.metrics.latency), verification: verification)
    }

    /// Evaluates ratio gates between scenarios. Pure.
    static func compare(_ comparisons: [ScenarioPlan.Comparison], results: [ScenarioResult]) -> [ComparisonResult] {
        comparisons.compactMap { comparison in
            guard let baseline = results.first(where: { $0.name == comparison.baseline }),
                let candidate = results.first(where: { $0.name == comparison.candidate }),
                let baselineValue = baseline.value(of: comparison.metric),
                let candidateValue = candidate.value(of: comparison.metric)
            else { return nil }
            let ratio = baselineValue > 0 ? candidateValue / baselineValue : 0
            return ComparisonResult(
                baseline: comparison.baseline, candidate: comparison.candidate, metric: comparison.metric,
                baselineValue: baselineValue, candidateValue: candidateValue, ratio: ratio, minRatio: comparison.minRatio,
                passed: comparison.minRatio.map { ratio >= $0 } ?? true)
        }
    }

    /// The run's verdict from its scenarios and comparisons. Pure.
    static func verdict(results: [ScenarioResult], comparisons: [ComparisonResult], maxFailedEditRate: Double) -> RunReport.Verdict {
        var failures: [String] = []
        for result in results {
            let sent = result.metrics.editsSent
            let failed = result.metrics.editsFailed
            if sent > 0, Double(failed) / Double(sent) > maxFailedEditRate {
                failures.append(
                    "\(result.name): \(failed) of \(sent) edits failed (allowed: \(Self.percent(maxFailedEditRate)))")
            }
            if let verification = result.verification, !verification.passed {
                failures.append("\(result.name): verification failed: " + verification.notes.joined(separator: "; "))
            }
        }
        for comparison in comparisons where !comparison.passed {
            failures.append(
                "\(comparison.candidate)/\(comparison.baseline) \(comparison.metric) ratio \(Self.format(comparison.ratio))× is below the required \(Self.format(comparison.minRatio ?? 0))×"
            )
        }
        return RunReport.Verdict(passed: failures.isEmpty, failures: failures)
    }

    static func percent(_ fraction: Double) -> String { "\(Self.format(fraction * 100)) %" }

    static func format(_ value: Double) -> String {
        String(format: value >= 100 ? "%.0f" : (value >= 10 ? "%.1f" : "%.2f"), value)
    }

    static func iso8601(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    static func machine() -> RunReport.Machine {
        let process = ProcessInfo.processInfo
        return RunReport.Machine(
            hostname: process.hostName, operatingSystem: process.operatingSystemVersionString,
            cores: process.activeProcessorCount, memoryBytes: process.physicalMemory)
    }
}
