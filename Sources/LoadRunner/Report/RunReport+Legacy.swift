import FeatureModel
package import Foundation

extension RunReport {
    /// Reads a `report.json` of any supported schema version, and checks that its numbers are in range
    /// (``checkRanges()``), so that rendering, comparing or merging it cannot overflow.
    /// - Throws: ``LoadRunnerError`` for a file that is not a featureload run report (saying which field is wrong
    ///   and why), a schema version that is not a valid one or is newer than this featureload reads, or a number
    ///   out of range.
    package static func decode(_ data: Data) throws -> RunReport {
        struct Header: Decodable {
            var schema: String?
            var schemaVersion: Int?
        }
        let report: RunReport
        do {
            let header = try JSONDecoder().decode(Header.self, from: data)
            guard header.schema == "featureload.run-report" else {
                throw LoadRunnerError("not a featureload run report (schema '\(header.schema ?? "none")')")
            }
            switch header.schemaVersion ?? 1 {
            case 1:
                let legacy = try JSONDecoder().decode(RunReportV1.self, from: data)
                try legacy.checkRanges()
                report = RunReport(legacy: legacy)
            case currentSchemaVersion:
                report = try JSONDecoder().decode(RunReport.self, from: data)
            case let version where version < 1:
                throw LoadRunnerError("report schema version \(version) is invalid: versions start at 1; the file is corrupt")
            case let version:
                throw LoadRunnerError(
                    "report schema version \(version) is newer than this featureload reads (\(currentSchemaVersion)); update featureload")
            }
        } catch let error as DecodingError {
            throw LoadRunnerError(DecodingProblem.describe(error))
        }
        try report.checkRanges()
        return report
    }

    /// A version-1 report in the current form: its counters become metric series tagged with each scenario.
    package init(legacy: RunReportV1) {
        var metrics: [MetricSeries] = []
        var scenarios: [ScenarioRecord] = []
        var offset = 0.0
        for result in legacy.scenarios {
            let m = result.metrics
            let tags = ["scenario": result.name, "operation": "applyEdits"]
            var requestTags = tags
            requestTags["status"] = "200"
            var reqs = MetricSeries(metric: .httpReqs, tags: requestTags)
            reqs.count = Double(m.attempts > 0 ? m.attempts : m.requests)
            var duration = MetricSeries(metric: .httpReqDuration, tags: requestTags)
            duration.histogram = m.latency
            duration.count = Double(m.latency.count)
            var failed = MetricSeries(metric: .httpReqFailed, tags: requestTags)
            failed.count = reqs.count
            failed.passes = Double(m.failedRequests)
            var iterations = MetricSeries(metric: .iterations, tags: tags)
            iterations.count = Double(m.requests)
            var iterationDuration = MetricSeries(metric: .iterationDuration, tags: tags)
            iterationDuration.histogram = m.latency
            iterationDuration.count = Double(m.latency.count)
            var edits = MetricSeries(metric: .edits, tags: tags)
            edits.count = Double(m.editsSucceeded)
            var editFailed = MetricSeries(metric: .editFailed, tags: tags)
            editFailed.count = Double(m.editsSucceeded + m.editsFailed)
            editFailed.passes = Double(m.editsFailed)
            var unknown = MetricSeries(metric: .editOutcomeUnknown, tags: tags)
            unknown.count = Double(m.editsUnknown)
            var retries = MetricSeries(metric: .retries, tags: tags)
            retries.count = Double(m.retries)
            metrics += [reqs, duration, failed, iterations, iterationDuration, edits, editFailed, unknown, retries]
            scenarios.append(
                ScenarioRecord(
                    name: result.name, executor: result.executor,
                    settings: ["vus": String(result.vus), "iterations": String(result.iterations)],
                    operations: [
                        OperationRecord(label: "applyEdits", kind: "applyEdits", layer: result.layer, weight: 1, editsPerIteration: result.batchSize)
                    ],
                    tags: [:], startSeconds: offset, durationSeconds: result.durationSeconds, stopReason: result.stopReason,
                    verification: result.verification, warnings: [], errors: m.errors, backoffSeconds: m.backoffSeconds,
                    editsAppliedByEarlierAttempt: m.editsAppliedByEarlierAttempt))
            offset += result.durationSeconds
        }
        self.init(
            tool: legacy.tool,
            plan: Plan(
                name: legacy.plan.name, file: legacy.plan.file, description: legacy.plan.description, seed: legacy.plan.seed,
                maxFailedEditRate: legacy.plan.maxFailedEditRate, version: 1),
            target: legacy.target, machine: legacy.machine, startedAt: legacy.startedAt, finishedAt: legacy.finishedAt,
            startedAtEpochMilliseconds: 0, durationSeconds: offset, scenarios: scenarios, metrics: metrics, timeSeries: [],
            thresholds: [], comparisons: legacy.comparisons, notes: ["converted from a schema-version-1 report"], verdict: legacy.verdict)
    }
}
