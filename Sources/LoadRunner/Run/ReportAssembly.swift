import FeatureModel
import Foundation

/// Turns scenario outcomes into the saved ``RunReport``: records, metric series, time series, thresholds,
/// comparisons and the verdict. Pure apart from reading the machine's description.
struct ReportAssembly {
    let plan: ScenarioPlan
    let planFile: String
    let target: RunReport.TargetInfo
    let toolVersion: String

    func report(outcomes: [ScenarioOutcome], startedAt: Date, finishedAt: Date, duration: Duration) -> RunReport {
        var metrics: [MetricSeries] = []
        var timeSeries: [TimeBucket] = []
        var records: [ScenarioRecord] = []
        var notes: [String] = []
        var warmUpFailures: [String] = []
        for outcome in outcomes {
            if outcome.spec.isWarmUp {
                // A sweep point's warm-up: its figures are left out, but a lost edit is never hidden.
                if let verification = outcome.verification, !verification.passed {
                    warmUpFailures.append("\(outcome.spec.name): verification failed: \(verification.notes.joined(separator: "; "))")
                }
                continue
            }
            let snapshot = outcome.recorder.snapshot()
            let labels = outcome.spec.operations.map(\.label)
            metrics += snapshot.series(scenario: outcome.spec.name, operations: labels, tags: plan.metricTags(of: outcome.spec))
            timeSeries += snapshot.timeSeries(scenario: outcome.spec.name, operations: labels)
            records.append(Self.record(outcome))
            notes += outcome.warnings.map { "\(outcome.spec.name): \($0)" }
        }
        let seconds = duration.seconds
        let thresholds = ThresholdEvaluator.evaluate(plan.thresholds, metrics: metrics, durationSeconds: seconds)
        var report = RunReport(
            tool: .init(name: "featureload", version: toolVersion),
            plan: .init(
                name: plan.name, file: planFile, description: plan.description, seed: plan.seed, maxFailedEditRate: plan.maxFailedEditRate,
                maxFailedRequestRate: plan.maxFailedRequestRate, version: plan.version,
                scenarioNames: plan.scenarios.filter { !$0.isWarmUp }.map(\.name)),
            target: target, machine: Self.machine(), startedAt: startedAt.formatted(.iso8601), finishedAt: finishedAt.formatted(.iso8601),
            startedAtEpochMilliseconds: Int64((startedAt.timeIntervalSince1970 * 1000).rounded()), durationSeconds: seconds,
            scenarios: records, metrics: metrics, timeSeries: timeSeries, thresholds: thresholds, comparisons: [], notes: notes,
            verdict: .init(passed: true, failures: []))
        report.overrides = plan.overrides.isEmpty ? nil : plan.overrides
        report.tags = plan.tags.isEmpty ? nil : plan.tags
        report.variables = plan.variablesUsed.isEmpty ? nil : plan.variablesUsed
        report.notes = plan.notes + report.notes
        let views = report.views
        report.comparisons = Self.compare(plan.comparisons, views: views)
        report.verdict = Self.verdict(report: report, views: views, plan: plan)
        if !warmUpFailures.isEmpty {
            report.verdict.passed = false
            report.verdict.failures += warmUpFailures
        }
        return report
    }

    static func record(_ outcome: ScenarioOutcome) -> ScenarioRecord {
        let totals = outcome.recorder.snapshot().totals
        var record = ScenarioRecord(
            name: outcome.spec.name, executor: outcome.spec.executor.name, settings: outcome.spec.executor.owner.reportSettings,
            operations: outcome.spec.operations.map {
                OperationRecord(label: $0.label, kind: $0.kind.rawValue, layer: $0.layer, weight: $0.weight, editsPerIteration: $0.editsPerIteration)
            },
            tags: outcome.spec.tags, startSeconds: outcome.start.seconds, durationSeconds: (outcome.end - outcome.start).seconds,
            stopReason: outcome.stopReason, verification: outcome.verification, warnings: outcome.warnings)
        record.errors = totals.errors
        record.backoffSeconds = totals.backoffSeconds
        record.editsAppliedByEarlierAttempt = totals.editsAppliedByEarlierAttempt
        record.sweepPoint = outcome.spec.sweepPoint
        return record
    }

    /// The figures of a scenario that just finished, for progress events.
    static func view(of outcome: ScenarioOutcome, tags: [String: String]) -> ScenarioView {
        let labels = outcome.spec.operations.map(\.label)
        let series = outcome.recorder.snapshot().series(scenario: outcome.spec.name, operations: labels, tags: tags)
        return ScenarioView(record: record(outcome), metrics: series)
    }

    /// Evaluates ratio gates between scenarios. Pure.
    static func compare(_ comparisons: [ScenarioPlan.Comparison], views: [ScenarioView]) -> [ComparisonResult] {
        comparisons.compactMap { comparison in
            guard let baseline = views.first(where: { $0.name == comparison.baseline }),
                let candidate = views.first(where: { $0.name == comparison.candidate }),
                let baselineValue = baseline.value(of: comparison.metric),
                let candidateValue = candidate.value(of: comparison.metric)
            else { return nil }
            let ratio = baselineValue > 0 ? candidateValue / baselineValue : 0
            return ComparisonResult(
                baseline: comparison.baseline, candidate: comparison.candidate, metric: comparison.metric, baselineValue: baselineValue,
                candidateValue: candidateValue, ratio: ratio, minRatio: comparison.minRatio, passed: comparison.minRatio.map { ratio >= $0 } ?? true)
        }
    }

    /// The verdict: thresholds, the implicit gates (failed edits and requests), verifications, comparisons, and
    /// whether the run completed. Pure.
    static func verdict(report: RunReport, views: [ScenarioView], plan: ScenarioPlan) -> RunReport.Verdict {
        // Warm-ups are left out of the report.
        verdict(report: report, views: views, measuredScenarios: plan.scenarios.filter { !$0.isWarmUp }.count)
    }

    /// The verdict of a report whose run measured `measured` scenarios, holding each to the report's plan's gates.
    static func verdict(report: RunReport, views: [ScenarioView], measuredScenarios measured: Int) -> RunReport.Verdict {
        var failures: [String] = []
        let interrupted = report.scenarios.filter { $0.stopReason == .cancelled }.count
        if interrupted > 0 || report.scenarios.count < measured {
            failures.append(
                "the run was interrupted: \(report.scenarios.count - interrupted) of \(measured) scenarios completed")
        }
        for threshold in report.thresholds where !threshold.passed {
            let measured = threshold.value.map { Figures.measured($0, key: threshold.key, condition: threshold.condition) } ?? "no samples"
            failures.append("threshold \(threshold.key): \(threshold.condition) failed (measured \(measured))")
        }
        let gates = report.plan.gates
        for view in views {
            for check in gates.checks(view) {
                if let failure = check.failure { failures.append("\(view.name): \(failure)") }
            }
            if let verification = view.record.verification, !verification.passed {
                failures.append("\(view.name): verification failed: " + verification.notes.joined(separator: "; "))
            }
        }
        for comparison in report.comparisons where !comparison.passed {
            failures.append(
                "\(comparison.candidate)/\(comparison.baseline) \(comparison.metric) ratio \(ReportRenderer.number(comparison.ratio))× is below the required \(ReportRenderer.number(comparison.minRatio ?? 0))×"
            )
        }
        return RunReport.Verdict(passed: failures.isEmpty, failures: failures)
    }

    static func machine() -> RunReport.Machine {
        let process = ProcessInfo.processInfo
        return RunReport.Machine(
            hostname: process.hostName, operatingSystem: process.operatingSystemVersionString, cores: process.activeProcessorCount,
            memoryBytes: process.physicalMemory)
    }
}
