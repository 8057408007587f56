import Foundation

/// Merges the reports of generators that ran one test between them (each an execution segment) into one report,
/// exactly: counters summed, HDR histograms merged bucket by bucket, VU gauges added (the generators ran at once),
/// time series aligned by wall clock, and the
/// thresholds, gates and verdict evaluated once on the merged figures.
///
/// Reports of different scenario files, seeds or schema versions, and two reports of the same segment, are refused.
/// The merged report names its generators and flags one that fell behind (dropped iterations) or started out of
/// step with the others; when the segments do not cover the whole test, its verdict fails.
///
/// ```swift
/// let merged = try ReportMerge.merge([("a/report.json", a), ("b/report.json", b)])
/// ```
package enum ReportMerge {
    /// Why reports cannot be merged.
    package struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        package var description: String
    }

    /// Generators whose start differs from the first one's by more than this many seconds are flagged.
    static let startTolerance = 1.0

    /// Merges `reports` (each with the path it was read from, for messages).
    /// - Throws: ``Problem`` naming the reports that do not belong together, and why.
    package static func merge(_ reports: [(path: String, report: RunReport)]) throws(Problem) -> RunReport {
        guard let first = reports.first else { throw Problem(description: "give the reports to merge") }
        try check(reports)
        try checkCounts(reports)
        let ordered = reports.sorted { $0.report.startedAtEpochMilliseconds < $1.report.startedAtEpochMilliseconds }
        let start = ordered[0].report.startedAtEpochMilliseconds
        let offsets = reports.map { Double($0.report.startedAtEpochMilliseconds - start) / 1000 }
        let end = zip(reports, offsets).map { $0.0.report.durationSeconds + $0.1 }.max() ?? 0

        var merged = first.report
        merged.startedAt = ordered[0].report.startedAt
        merged.startedAtEpochMilliseconds = start
        merged.finishedAt = reports.max { $0.report.finishedAt < $1.report.finishedAt }?.report.finishedAt ?? merged.finishedAt
        merged.durationSeconds = end

        merged.metrics = mergedMetrics(reports)
        merged.timeSeries = mergedTimeSeries(zip(reports, offsets).map { ($0.0.report, $0.1) })
        merged.scenarios = first.report.scenarios.map { record in
            mergeRecords(
                zip(reports, offsets).compactMap { entry in
                    entry.0.report.scenarios.first { $0.name == record.name }.map { (entry.0.report.segment, $0, entry.1) }
                })
        }

        // Segments: what the reports cover together.
        let segments = reports.compactMap { try? ExecutionSegment(parsing: $0.report.segment) }.sorted { $0.from < $1.from }
        let covered = segments.map(\.length).reduce(Fraction.zero, +)
        merged.segment = covered == .one ? "0:1" : segments.map(\.description).joined(separator: "+")
        merged.notes = notes(reports, offsets: offsets)
        judge(&merged, as: first.report, covered: covered)
        // The merged report must load again: its sums (VUs, seconds) are checked like a file's.
        do { try merged.checkRanges() } catch {
            throw Problem(description: "the merged report would be out of range: \(error); merge fewer reports")
        }
        return merged
    }

    /// One series per metric and tags, summed and merged exactly.
    static func mergedMetrics(_ reports: [(path: String, report: RunReport)]) -> [MetricSeries] {
        var order: [String] = []
        var series: [String: MetricSeries] = [:]
        for (_, report) in reports {
            for item in report.metrics {
                let key = item.metric.rawValue + "|" + item.tags.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
                if series[key] == nil {
                    order.append(key)
                    series[key] = item
                } else if item.metric.kind == .gauge, var sum = series[key] {
                    // VUs of generators running at once add up (a gauge merged within one run keeps the highest).
                    sum.count += item.count
                    sum.value = (sum.value ?? 0) + (item.value ?? 0)
                    sum.min = (sum.min ?? 0) + (item.min ?? 0)
                    sum.max = (sum.max ?? 0) + (item.max ?? 0)
                    series[key] = sum
                } else {
                    series[key]?.merge(item)
                }
            }
        }
        return order.compactMap { series[$0] }
    }

    /// Each generator's seconds moved to the first one's clock (`offset` seconds after it) and merged per second,
    /// scenario and operation.
    static func mergedTimeSeries(_ reports: [(report: RunReport, offset: Double)]) -> [TimeBucket] {
        var buckets: [String: TimeBucket] = [:]
        var bucketOrder: [String] = []
        for (report, offset) in reports {
            let shift = Int(offset.rounded())
            for var bucket in report.timeSeries {
                bucket.second += shift
                let key = "\(bucket.second)|\(bucket.scenario)|\(bucket.operation)"
                if var existing = buckets[key] {
                    let busy = existing.busyVUs + bucket.busyVUs  // generators' busy VUs in the same second add up
                    existing.merge(bucket)
                    existing.busyVUs = busy
                    buckets[key] = existing
                } else {
                    bucketOrder.append(key)
                    buckets[key] = bucket
                }
            }
        }
        return bucketOrder.compactMap { buckets[$0] }.sorted {
            ($0.second, $0.scenario, $0.operation) < ($1.second, $1.scenario, $1.operation)
        }
    }

    /// The generators, those that fell behind or started out of step, then each one's own notes.
    static func notes(_ reports: [(path: String, report: RunReport)], offsets: [Double]) -> [String] {
        var notes = [
            "merged from \(reports.count) generators: "
                + zip(reports, offsets).map { entry in
                    "\(entry.0.path) (segment \(entry.0.report.segment), \(entry.0.report.machine.hostname), started +\(String(format: "%.3f", entry.1)) s)"
                }.joined(separator: "; ")
        ]
        for ((path, report), offset) in zip(reports, offsets) {
            let dropped = report.views.reduce(0) { $0 + $1.droppedIterations }
            if dropped > 0 {
                notes.append("\(path) (segment \(report.segment)) fell behind its schedule: \(dropped) iterations dropped")
            }
            if offset > startTolerance {
                notes.append(
                    "\(path) (segment \(report.segment)) started \(String(format: "%.3f", offset)) s after the first, more than \(startTolerance) s: its clock or its start was off (use --start-at)"
                )
            }
            notes += report.notes.map { "\(report.segment): \($0)" }
        }
        return notes
    }

    /// Thresholds, comparison gates and the verdict, evaluated once on the merged figures; a merge that does not
    /// cover the whole test fails.
    static func judge(_ merged: inout RunReport, as first: RunReport, covered: Fraction) {
        let specs = thresholdSpecs(first.thresholds)
        merged.thresholds = ThresholdEvaluator.evaluate(specs, metrics: merged.metrics, durationSeconds: merged.durationSeconds)
        let views = merged.views
        let comparisons = first.comparisons.map {
            ScenarioPlan.Comparison(baseline: $0.baseline, candidate: $0.candidate, metric: $0.metric, minRatio: $0.minRatio)
        }
        merged.comparisons = ReportAssembly.compare(comparisons, views: views)
        var verdict = ReportAssembly.verdict(report: merged, views: views, measuredScenarios: first.scenarios.count)
        if covered != .one {
            verdict.failures.insert(
                "the merged reports cover \(covered) of the test (segments \(merged.segment)); merge every generator's report", at: 0)
            verdict.passed = false
        }
        merged.verdict = verdict
    }

    /// Refuses reports whose counts, added up, exceed what one report may hold (``RunReport/maximumCount``): each
    /// report's total is checked (a report built in memory was never decoded), then the totals are added with
    /// overflow checks, so no sum the merge makes can overflow.
    static func checkCounts(_ reports: [(path: String, report: RunReport)]) throws(Problem) {
        var total: UInt64 = 0
        for (path, report) in reports {
            let counts: UInt64
            do { counts = try report.checkRanges() } catch { throw Problem(description: "\(path): \(error)") }
            let (sum, overflow) = total.addingReportingOverflow(counts)
            guard !overflow, sum <= RunReport.maximumCount else {
                throw Problem(
                    description:
                        "the counts of these reports add up to more than \(RunReport.maximumCount) (2^53) from \(path) on, more than one report holds: a report is corrupt, or merge fewer"
                )
            }
            total = sum
        }
    }

    /// Refuses reports that do not belong to one test.
    static func check(_ reports: [(path: String, report: RunReport)]) throws(Problem) {
        let (firstPath, first) = reports[0]
        // Each scenario's name, executor and settings: what generators of one scenario file share.
        func scenarios(of report: RunReport) -> [[String]] {
            report.scenarios.map { [$0.name, $0.executor] + $0.settings.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } }
        }
        let firstScenarios = scenarios(of: first)
        for (path, report) in reports.dropFirst() {
            let plan = report.plan
            if plan.name != first.plan.name || plan.seed != first.plan.seed || plan.version != first.plan.version
                || plan.scenarioNames != first.plan.scenarioNames
            {
                throw Problem(
                    description:
                        "\(path) is a run of '\(plan.name)' (seed \(plan.seed)) and \(firstPath) of '\(first.plan.name)' (seed \(first.plan.seed)): merge the reports of one scenario file's generators"
                )
            }
            if scenarios(of: report) != firstScenarios {
                throw Problem(
                    description:
                        "\(path) and \(firstPath) ran different scenarios (executors or settings differ): merge the reports of one scenario file")
            }
            if report.tags != first.tags || report.overrides != first.overrides {
                throw Problem(
                    description: "\(path) and \(firstPath) ran with different --tag or override options: give every generator the same ones")
            }
            if report.segmentSequence != first.segmentSequence {
                throw Problem(
                    description:
                        "\(path) ran in the segment sequence \(report.segmentSequence ?? "none") and \(firstPath) in \(first.segmentSequence ?? "none"): give every generator the same --execution-segment-sequence"
                )
            }
        }
        var seen: [ExecutionSegment: String] = [:]
        for (path, report) in reports {
            guard let segment = try? ExecutionSegment(parsing: report.segment) else {
                throw Problem(description: "\(path) has no execution segment this featureload reads ('\(report.segment)')")
            }
            if let other = seen[segment] {
                throw Problem(description: "\(path) and \(other) both ran segment \(segment): merge one report per segment")
            }
            for (known, other) in seen where known.from < segment.to && segment.from < known.to {
                throw Problem(
                    description: "\(path) (segment \(segment)) overlaps \(other) (segment \(known)): the segments of one test must not overlap")
            }
            seen[segment] = path
        }
    }

    /// One scenario's records from every generator (segment, record, the generator's start offset in seconds).
    static func mergeRecords(_ records: [(segment: String, record: ScenarioRecord, offset: Double)]) -> ScenarioRecord {
        var merged = records[0].record
        let starts = records.map { $0.offset + $0.record.startSeconds }
        let ends = records.map { $0.offset + $0.record.startSeconds + $0.record.durationSeconds }
        merged.startSeconds = starts.min() ?? merged.startSeconds
        merged.durationSeconds = (ends.max() ?? 0) - merged.startSeconds
        if let cancelled = records.first(where: { $0.record.stopReason == .cancelled }) { merged.stopReason = cancelled.record.stopReason }
        merged.warnings = records.flatMap { entry in entry.record.warnings.map { "\(entry.segment): \($0)" } }
        merged.errors = records.reduce(into: [:]) { errors, entry in errors.merge(entry.record.errors, uniquingKeysWith: +) }
        merged.backoffSeconds = records.reduce(0) { $0 + $1.record.backoffSeconds }
        merged.editsAppliedByEarlierAttempt = records.reduce(0) { $0 + $1.record.editsAppliedByEarlierAttempt }
        let verifications = records.compactMap { entry in entry.record.verification.map { (entry.segment, $0) } }
        if var verification = verifications.first?.1 {
            for (_, other) in verifications.dropFirst() {
                verification.reportedAdded += other.reportedAdded
                verification.foundByObjectId += other.foundByObjectId
                verification.duplicateObjectIds += other.duplicateObjectIds
                verification.editsInFailedRequests += other.editsInFailedRequests
                verification.globalIdsReported = sum(verification.globalIdsReported, other.globalIdsReported)
                verification.globalIdsFound = sum(verification.globalIdsFound, other.globalIdsFound)
                verification.unknownOutcomes = sum(verification.unknownOutcomes, other.unknownOutcomes)
                verification.unknownFoundApplied = sum(verification.unknownFoundApplied, other.unknownFoundApplied)
                verification.deletedStillPresent = sum(verification.deletedStillPresent, other.deletedStillPresent)
            }
            // Layer counts before and after are each generator's own view of a shared layer: not summed.
            verification.layerCountBefore = nil
            verification.layerCountAfter = nil
            verification.passed = verifications.allSatisfy { $0.1.passed }
            verification.notes = verifications.flatMap { entry in entry.1.notes.map { "\(entry.0): \($0)" } }
            merged.verification = verification
        }
        return merged
    }

    static func sum(_ a: Int?, _ b: Int?) -> Int? {
        a == nil && b == nil ? nil : (a ?? 0) + (b ?? 0)
    }

    /// The thresholds a report was judged by, read back from their keys and conditions.
    static func thresholdSpecs(_ results: [ThresholdResult]) -> [ThresholdSpec] {
        var specs: [ThresholdSpec] = []
        for result in results {
            guard case .success(let (metric, filter)) = ThresholdParser.key(result.key),
                case .success(var condition) = ThresholdParser.condition(result.condition, metric: metric)
            else { continue }
            condition.abortOnFail = result.abortOnFail
            if let index = specs.firstIndex(where: { $0.key == result.key }) {
                specs[index].conditions.append(condition)
            } else {
                specs.append(ThresholdSpec(key: result.key, metric: metric, filter: filter, conditions: [condition]))
            }
        }
        return specs
    }
}
