import FeatureModel
import FeatureServiceClient
import Foundation
import Synchronization

/// What one scenario produced.
struct ScenarioOutcome: Sendable {
    var spec: ScenarioSpec
    var recorder: ScenarioRecorder
    var start: Duration
    var end: Duration
    var stopReason: ScenarioStopReason
    var verification: ScenarioVerification?
    var warnings: [String]
}

/// The recorders of the scenarios running now and when each started (from the run's start), and of those that
/// have finished.
final class RunningScenarios: Sendable {
    let scenarios = Mutex<[String: (recorder: ScenarioRecorder, start: Duration)]>([:])
    let finished = Mutex<[String: ScenarioRecorder]>([:])
}

/// Carries out a plan's scenarios: setup, the schedulers (concurrently or in sequence), and verification.
struct RunContext<C: Clock<Duration>>: Sendable {
    let plan: ScenarioPlan
    let service: FeatureService
    let layers: [Int: LayerInfo]
    let clock: C
    let runStart: C.Instant
    let runNonce: UInt64
    let policy: RetryPolicy
    /// This generator's execution segment (the whole test by default).
    var segment: ExecutionTuple = .whole
    /// The transport's driver thread, where the schedulers run the iterations of scenarios whose every operation
    /// ``OperationSpec/fitsDriverThread`` (``ScenarioScheduler/executor``).
    var executor: (any TaskExecutor)?
    /// Existing-feature pools, one per layer, shared by every scenario of the run so that one scenario's deletes
    /// take features out of the others' reach.
    let pools = PoolRegistry()
    /// The scenarios running now, for progress.
    let running = RunningScenarios()
    /// Where every measured request also goes, one line each (`run --out csv=…`).
    var rawOutput: RawSampleWriter?
    /// Where every iteration is also counted for a scrape while the run lasts (`run --metrics-listen`).
    var liveMetrics: LiveRunMetrics?

    /// How far each running scenario has got, in the plan's order.
    func progress() -> [ScenarioProgress] {
        let now = runStart.duration(to: clock.now)
        let current = running.scenarios.withLock { $0 }
        return plan.scenarios.compactMap { spec in
            current[spec.name].map { $0.recorder.progress(spec: spec, elapsed: (now - $0.start).seconds) }
        }
    }

    /// The run's metric series so far — scenarios running and finished, warm-ups left out — for `abortOnFail`.
    func metricsSoFar() -> [MetricSeries] {
        let current = running.scenarios.withLock { $0.mapValues(\.recorder) }
        let done = running.finished.withLock { $0 }
        var metrics: [MetricSeries] = []
        for spec in plan.scenarios where !spec.isWarmUp {
            guard let recorder = current[spec.name] ?? done[spec.name] else { continue }
            metrics += recorder.snapshot().series(scenario: spec.name, operations: spec.operations.map(\.label), tags: plan.metricTags(of: spec))
        }
        return metrics
    }

    private enum Event: Sendable {
        case finished(Int, ScenarioOutcome)
    }

    /// Runs every scenario when its start condition holds: its `startTime` after the run's start, or after the
    /// scenario it names in `startAfter` (version-1 plans chain each scenario to the one before).
    func runScenarios(onEvent: @escaping @Sendable (RunEvent) -> Void) async -> [ScenarioOutcome] {
        let scenarios = plan.scenarios
        var after: [String: String] = [:]
        for (index, spec) in scenarios.enumerated() {
            if let name = spec.startAfter {
                after[spec.name] = name
            } else if plan.isSequential && index > 0 {
                after[spec.name] = scenarios[index - 1].name
            }
        }
        let indexStride = 1 << 40
        return await withTaskGroup(of: Event.self) { group in
            func start(_ index: Int, at instant: C.Instant) {
                let spec = scenarios[index]
                group.addTask {
                    try? await clock.sleep(until: instant, tolerance: nil)
                    onEvent(.scenarioStarted(spec))
                    let outcome = await runScenario(spec, indexBase: index * indexStride)
                    return .finished(index, outcome)
                }
            }
            for (index, spec) in scenarios.enumerated() where after[spec.name] == nil {
                start(index, at: runStart.advanced(by: spec.startTime))
            }
            var outcomes: [Int: ScenarioOutcome] = [:]
            while let event = await group.next() {
                guard case .finished(let index, let outcome) = event else { continue }
                outcomes[index] = outcome
                let view = ReportAssembly.view(of: outcome, tags: plan.metricTags(of: outcome.spec))
                onEvent(.scenarioFinished(outcome.spec, view))
                guard !Task.isCancelled else { continue }
                for (next, spec) in scenarios.enumerated() where after[spec.name] == scenarios[index].name {
                    start(next, at: clock.now.advanced(by: spec.startTime))
                }
            }
            return outcomes.sorted { $0.key < $1.key }.map(\.value)
        }
    }

    /// Setup, the scheduler, verification: one scenario from start to end.
    func runScenario(_ spec: ScenarioSpec, indexBase: Int) async -> ScenarioOutcome {
        let labels = spec.operations.map(\.label)
        // A sweep's warm-up points are not measured, so their requests are not written either.
        let recorder = ScenarioRecorder(
            scenario: spec.name, operations: labels, layers: spec.operations.map(\.layer), keepIds: plan.verify,
            rawOutput: spec.isWarmUp ? nil : rawOutput, tags: plan.metricTags(of: spec),
            live: spec.isWarmUp ? nil : liveMetrics?.scenario(spec.name, operations: labels, tags: plan.metricTags(of: spec)))
        var warnings: [String] = []
        let begin = runStart.duration(to: clock.now)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("featureload-\(spec.name)-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let prepared: [any LoadOperation]
        var countsBefore: [Int: Int] = [:]
        do {
            prepared = try await prepare(spec, directory: directory)
            // A layer's row count only says what this run added when no other generator adds to it at the same time.
            if plan.isSequential && plan.verify && segment.sequence.count == 1 {
                for layer in spec.layers where spec.operations.contains(where: { $0.layer == layer && $0.addsPerIteration > 0 }) {
                    countsBefore[layer] = try await policy.retrying(on: clock) { try await service.layer(id: layer).count() }
                }
            }
        } catch {
            warnings.append("setup failed, nothing ran: \(error)")
            let now = runStart.duration(to: clock.now)
            return ScenarioOutcome(
                spec: spec, recorder: recorder, start: begin, end: now, stopReason: Task.isCancelled ? .cancelled : .durationDone,
                verification: nil, warnings: warnings)
        }
        let start = runStart.duration(to: clock.now)
        running.scenarios.withLock { $0[spec.name] = (recorder, start) }
        defer { running.scenarios.withLock { _ = $0.removeValue(forKey: spec.name) } }
        let scheduler = ScenarioScheduler(
            spec: spec, operations: prepared, picker: OperationPicker(weights: spec.operations.map(\.weight), seed: plan.seed ^ 0x5EED),
            recorder: recorder, clock: clock, runStart: runStart, indexBase: indexBase, seed: plan.seed, segment: segment,
            executor: spec.operations.allSatisfy(\.fitsDriverThread) ? executor : nil)
        let stop = await scheduler.run()
        let end = runStart.duration(to: clock.now)
        running.finished.withLock { $0[spec.name] = recorder }
        var verification: ScenarioVerification?
        if plan.verify && stop != .cancelled && !Task.isCancelled {
            let verifier = Verifier(service: service, layers: layers, policy: policy, clock: clock)
            verification = await verifier.verify(spec, recorded: recorder.snapshot(), countsBefore: countsBefore)
        }
        warnings += Self.warnings(spec, recorder.snapshot(), seconds: (end - start).seconds, segment: segment)
        return ScenarioOutcome(
            spec: spec, recorder: recorder, start: start, end: end, stopReason: stop, verification: verification, warnings: warnings)
    }

    /// Makes the scenario's operations: tables, id pools (sampled and seeded), attachment files.
    private func prepare(_ spec: ScenarioSpec, directory: String) async throws -> [any LoadOperation] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var pools: [Int: IdPool] = [:]
        var tables: [Int: ServiceFeatureTable] = [:]
        for layer in spec.layers {
            let table = try await policy.retrying(on: clock) { try await service.table(id: layer) }
            tables[layer] = table
            let needsIds = spec.operations.contains { $0.layer == layer && $0.needsExistingFeatures }
            var ids: [Int64] = []
            if needsIds {
                if spec.setup.sample > 0 && !self.pools.has(layer) {
                    // Each segment samples from its own stripe of the layer's object IDs (by value, which every
                    // generator sees alike), so generators do not fight over the same features.
                    let all = try await policy.retrying(on: clock) { try await table.client.objectIds() }
                        .filter { segment.owns(Int($0)) }
                    let sample = segment.scale(spec.setup.sample)
                    var random = SplitMix64(seed: plan.seed ^ UInt64(layer))
                    ids = all.count <= sample ? all : (0..<sample).map { _ in all[Int(random.next() % UInt64(all.count))] }
                }
                if spec.setup.seed > 0 {
                    ids += try await seed(segment.scale(spec.setup.seed), into: table, scenario: spec.name)
                }
            }
            let sampling = plan.scenarios.contains { other in
                other.operations.contains { $0.layer == layer && $0.settings.owner.samplesExistingFeatures }
            }
            pools[layer] = self.pools.pool(
                for: layer, adding: ids,
                make: IdPool(ids: [], seed: plan.seed ^ UInt64(layer) ^ 0x9001, reserve: sampling ? max(10, ids.count / 2) : 0))
        }
        var operations: [any LoadOperation] = []
        for (index, op) in spec.operations.enumerated() {
            let table = tables[op.layer]!
            let owner = op.settings.owner
            let files =
                try owner.attachmentFiles.map {
                    try AttachmentOperation.makeFiles($0, label: op.label, in: directory, seed: plan.seed &+ UInt64(index))
                } ?? []
            var partnerPool: IdPool?
            if case .relate(let relate) = op.settings,
                let partner = layers[op.layer]?.relationships?.first(where: { $0.id == relate.relationshipId })?.relatedTableId
            {
                partnerPool = try await samplePool(partner, size: max(spec.setup.sample, 1))
            }
            var shaper: ValidityShaper?
            // The adds of applyEdits and addFeatures are shaped, and a deep insert's parent.
            if let invalidRate = owner.invalidAddsRate, op.addsPerIteration > 0, invalidRate > 0 || table.info.hasContingentValuesDefinition == true {
                let definition =
                    table.info.hasContingentValuesDefinition == true
                    ? try await policy.retrying(on: clock) { try await table.contingentValuesDefinition() } : nil
                shaper = ValidityShaper(layer: table.info, contingentValues: definition)
            }
            let environment = OperationEnvironment(
                service: service, table: table,
                generator: FeatureGenerator(layer: table.info, seed: plan.seed ^ Self.hash(spec.name) ^ UInt64(index)),
                pool: pools[op.layer]!, retry: spec.retry.map(Self.policy), runNonce: runNonce ^ Self.hash(spec.name) ^ UInt64(index),
                attachmentFiles: files, layers: layers, partnerPool: partnerPool, shaper: shaper)
            operations.append(owner.operation(op, environment: environment))
        }
        return operations
    }

    /// A pool of up to `size` object IDs sampled from `layer` (for the other side of a relationship).
    private func samplePool(_ layer: Int, size: Int) async throws -> IdPool {
        let all = try await policy.retrying(on: clock) { try await service.layer(id: layer).objectIds() }
        var random = SplitMix64(seed: plan.seed ^ UInt64(layer) ^ 0x0A7E)
        let ids = all.count <= size ? all : (0..<size).map { _ in all[Int(random.next() % UInt64(all.count))] }
        return IdPool(ids: ids, seed: plan.seed ^ UInt64(layer) ^ 0x0A7F)
    }

    /// Adds `count` generated features in batches of 500 and returns their object IDs.
    private func seed(_ count: Int, into table: ServiceFeatureTable, scenario: String) async throws -> [Int64] {
        let generator = FeatureGenerator(layer: table.info, seed: plan.seed ^ Self.hash(scenario) ^ 0x5E7_0000)
        var ids: [Int64] = []
        var start = 0
        while start < count {
            // Numbered as the whole test's seeding would number them: a segment seeds its own of those.
            let batch =
                segment.sequence.count == 1
                ? generator.features(from: (1 << 50) + start, count: min(500, count - start))
                : (start..<min(start + 500, count)).map { generator.feature(at: (1 << 50) + segment.global($0)) }
            let result = try await table.client.applyEdits(LayerEdits(adds: batch))
            ids += result.addResults.compactMap { $0.success ? $0.objectId : nil }
            start += batch.count
        }
        return ids
    }

    static func policy(_ retry: ScenarioSpec.Retry) -> RetryPolicy {
        RetryPolicy(maximumAttempts: retry.maxAttempts, initialBackoff: retry.initialBackoff, maximumBackoff: retry.maxBackoff, budget: retry.budget)
    }

    /// FNV-1a of a name, for per-scenario seeds.
    static func hash(_ text: String) -> UInt64 {
        text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    /// Warnings about how the scenario ran: dropped iterations and the VUs Little's law asks for.
    static func warnings(_ spec: ScenarioSpec, _ recorded: ScenarioAccumulator, seconds: Double, segment: ExecutionTuple = .whole) -> [String] {
        var warnings: [String] = []
        // This generator's share: its VUs, and the arrivals of the whole schedule it owns.
        let share = SegmentedExecutor(spec.executor, segment: segment)
        if recorded.droppedIterations > 0, let schedule = OpenSchedule(share.executor) {
            let totals = recorded.totals
            let meanSeconds = totals.iterationDuration.mean / 1_000_000
            let planned = share.numbering?.scale(schedule.plannedIterations) ?? schedule.plannedIterations
            let rate = Double(planned) / max(schedule.end.seconds, 1e-9)
            let needed = Int((rate * meanSeconds).rounded(.up)) + 1
            warnings.append(
                "\(recorded.droppedIterations) iterations were dropped: all \(schedule.maxVUs) VUs were busy. Little's law asks for about \(needed) VUs "
                    + "(\(Int(rate)) iterations/s × \(String(format: "%.3f", meanSeconds)) s each); raise maxVUs, or the service is saturated")
        }
        return warnings
    }
}

/// The run's pools of existing object IDs, by layer.
final class PoolRegistry: Sendable {
    private let pools = Mutex<[Int: IdPool]>([:])

    func has(_ layer: Int) -> Bool { pools.withLock { $0[layer] != nil } }

    /// The layer's pool (made from `make` the first time), with `ids` added.
    func pool(for layer: Int, adding ids: [Int64], make: @autoclosure () -> IdPool) -> IdPool {
        let pool = pools.withLock { pools in
            if let existing = pools[layer] { return existing }
            let made = make()
            pools[layer] = made
            return made
        }
        pool.add(ids)
        return pool
    }
}
