import FeatureModel
package import FeatureServiceClient
package import Foundation

/// Something the runner reports while it works, for a progress display.
package enum RunEvent: Sendable {
    case metadataLoaded(service: String, layers: [String])
    case scenarioStarted(ScenarioSpec)
    case scenarioFinished(ScenarioSpec, ScenarioView)
    /// Every second while scenarios run: how far each running one has got.
    case progress([ScenarioProgress])
}

/// How the runner reaches its feature service: URL, transport (TLS and timeouts set) and authentication.
package struct ServiceConnection: Sendable {
    package var url: String
    package var transport: any HTTPTransport
    package var authentication: TokenAuthentication?

    package init(url: String, transport: any HTTPTransport, authentication: TokenAuthentication? = nil) {
        self.url = url
        self.transport = transport
        self.authentication = authentication
    }
}

/// Runs a ``ScenarioPlan`` against a feature service and returns the ``RunReport``.
///
/// Version-2 plans run their scenarios concurrently, each from its `startTime` (or after `startAfter`);
/// version-1 plans run them one after another. The runner neither knows nor cares whether the service is the
/// embedded local one or a live one: it has a ``ServiceConnection``.
///
/// ```swift
/// let runner = ScenarioRunner(plan: plan, planFile: path, connection: connection, target: info, clock: ContinuousClock(), toolVersion: "1.0")
/// let report = try await runner.run()
/// ```
package struct ScenarioRunner<C: Clock<Duration>>: Sendable {
    package let plan: ScenarioPlan
    package let planFile: String
    package let connection: ServiceConnection
    package let target: RunReport.TargetInfo
    package let clock: C
    package let toolVersion: String
    let wallClock: @Sendable () -> Date
    /// Mixed into client GlobalIDs so a rerun with the same seed never collides with an earlier run's features.
    let runNonce: UInt64
    /// How often ``RunEvent/progress(_:)`` is sent while scenarios run.
    package var progressInterval: Duration = .seconds(1)
    /// The share of the test this process runs (k6's execution segment within its sequence); the whole test by
    /// default. Generators running every segment of one sequence run the whole test once between them.
    package var segment: ExecutionTuple = .whole
    /// Where every measured request also goes, one line each (`run --out csv=…`); nil writes none.
    package var rawOutput: RawSampleWriter?
    /// Where every measured iteration is also counted for a scrape while the run lasts (`run --metrics-listen`);
    /// nil counts nothing.
    package var liveMetrics: LiveRunMetrics?

    package init(
        plan: ScenarioPlan, planFile: String, connection: ServiceConnection, target: RunReport.TargetInfo, clock: C, toolVersion: String,
        wallClock: @escaping @Sendable () -> Date = { Date() }, runNonce: UInt64 = UInt64.random(in: 1...UInt64.max)
    ) {
        self.plan = plan
        self.planFile = planFile
        self.connection = connection
        self.target = target
        self.clock = clock
        self.toolVersion = toolVersion
        self.wallClock = wallClock
        self.runNonce = runNonce
    }

    /// The policy for metadata loads, setup and verification queries (``RetryPolicy/retrying(on:_:)`` on ``clock``: full
    /// jitter, `Retry-After` honoured, the budget kept): the first scenario's, else three attempts.
    var supportPolicy: RetryPolicy {
        if let retry = plan.scenarios.compactMap(\.retry).first {
            return RetryPolicy(
                maximumAttempts: retry.maxAttempts, initialBackoff: retry.initialBackoff, maximumBackoff: retry.maxBackoff, budget: retry.budget)
        }
        return RetryPolicy(maximumAttempts: 3, initialBackoff: .milliseconds(200), maximumBackoff: .seconds(2), budget: .seconds(30))
    }

    /// Loads the service's metadata, checks the plan against it, runs every scenario, verifies, and evaluates
    /// thresholds and gates.
    /// - Parameter onEvent: Called as scenarios start and finish, from the runner's tasks.
    /// - Returns: The report; its verdict says whether everything passed. When cancelled (Ctrl-C) the report holds
    ///   what ran so far and its verdict fails as interrupted.
    /// - Throws: ``LoadRunnerError`` when the metadata cannot be loaded or the plan does not fit the service (every
    ///   problem listed); `CancellationError` when cancelled before the load started.
    package func run(onEvent: @escaping @Sendable (RunEvent) -> Void = { _ in }) async throws -> RunReport {
        let startedAt = wallClock()
        let runStart = clock.now
        let service = FeatureService(
            url: connection.url, transport: RecordingTransport(connection.transport), authentication: connection.authentication)
        let layers = try await loadMetadata(service, onEvent: onEvent)

        let context = RunContext(
            plan: plan, service: service, layers: layers, clock: clock, runStart: runStart, runNonce: runNonce, policy: supportPolicy,
            segment: segment,
            executor: connection.transport.taskExecutor, rawOutput: rawOutput, liveMetrics: liveMetrics)
        // A generator sees its share of counts and rates, so on a split test only latency thresholds (which a share
        // measures as the whole does) may stop it early; the rest are judged once the reports are merged.
        let abortable = segment.sequence.count > 1 ? plan.thresholds.filter { $0.metric.kind == .trend } : plan.thresholds
        let aborting = abortable.contains { $0.conditions.contains(where: \.abortOnFail) }
        let (outcomes, abort) = await withTaskGroup(of: RunTaskResult.self) { group in
            group.addTask { .scenarios(await context.runScenarios(onEvent: onEvent)) }
            if let rawOutput {
                // Ends with the scenarios, as the ticker does, writing the last of their requests.
                group.addTask {
                    await rawOutput.flush(on: clock)
                    return .flusher
                }
            }
            group.addTask {
                // The ticker: progress every interval, and the abortOnFail thresholds on the metrics so far. It ends
                // when cancelled, which happens as soon as the scenarios are done.
                while (try? await clock.sleep(for: self.progressInterval)) != nil {
                    let running = context.progress()
                    if !running.isEmpty { onEvent(.progress(running)) }
                    if aborting,
                        let failed = ThresholdEvaluator.abortingFailure(
                            abortable, metrics: context.metricsSoFar(), elapsed: runStart.duration(to: clock.now))
                    {
                        return .aborted(failed)
                    }
                }
                return .ticker
            }
            var outcomes: [ScenarioOutcome] = []
            var abort: ThresholdResult?
            while let result = await group.next() {
                switch result {
                case .scenarios(let finished):
                    outcomes = finished
                    group.cancelAll()
                case .aborted(let failed):
                    // Stops the scenarios as Ctrl-C does; they report what they did, and later ones never start.
                    abort = failed
                    group.cancelAll()
                case .ticker, .flusher:
                    break
                }
            }
            return (outcomes, abort)
        }
        let finishedAt = wallClock()
        var report = ReportAssembly(plan: plan, planFile: planFile, target: target, toolVersion: toolVersion).report(
            outcomes: outcomes, startedAt: startedAt, finishedAt: finishedAt, duration: runStart.duration(to: clock.now))
        report.segment = segment.segment.description
        if segment.sequence.count > 1 { report.segmentSequence = ExecutionSegmentSequence(segment.sequence).description }
        if let abort {
            let measured = abort.value.map { ReportRenderer.number($0) } ?? "no samples"
            let reason = "aborted: threshold \(abort.key): \(abort.condition) failed with abortOnFail (measured \(measured))"
            report.notes.append(reason)
            report.verdict.passed = false
            report.verdict.failures.insert(reason, at: 0)
        }
        return report
    }

    /// Loads the service's metadata and counts the layers the plan needs features in, each look-up retried under
    /// ``supportPolicy``, then checks the plan against what it found.
    /// - Returns: The metadata of every layer and table that could be read.
    /// - Throws: ``LoadRunnerError`` when the service metadata cannot be loaded or the plan does not fit the service;
    ///   `CancellationError`.
    private func loadMetadata(_ service: FeatureService, onEvent: @Sendable (RunEvent) -> Void) async throws -> [Int: LayerInfo] {
        let policy = supportPolicy
        let info: ServiceInfo
        do {
            info = try await policy.retrying(on: clock) { try await service.load() }
        } catch {
            if error is CancellationError { throw error }
            throw LoadRunnerError("could not load the feature service at \(connection.url): \(error)")
        }
        var layers: [Int: LayerInfo] = [:]
        for summary in info.layers + info.tables {
            layers[summary.id] = try? await service.layerInfo(id: summary.id)
        }
        onEvent(.metadataLoaded(service: connection.url, layers: (info.layers + info.tables).map { "\($0.id) \($0.name)" }))
        // The layers whose emptiness would refuse every iteration: counted now, before any load.
        var featureCounts: [Int: Int] = [:]
        for layer in PlanCheck.layersNeedingFeatures(plan).sorted() where layers[layer] != nil {
            featureCounts[layer] = try? await policy.retrying(on: clock) { try await service.layer(id: layer).count() }
        }
        let problems = PlanCheck.check(plan, layers: layers, featureCounts: featureCounts)
        if !problems.isEmpty {
            throw LoadRunnerError(
                "the scenario file does not fit \(connection.url):\n" + problems.map { "  \(planFile): \($0)" }.joined(separator: "\n"))
        }
        return layers
    }
}

/// What a task of the run's task group ended with.
private enum RunTaskResult: Sendable {
    case scenarios([ScenarioOutcome])
    case ticker
    case flusher
    case aborted(ThresholdResult)
}
