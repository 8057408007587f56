import ArgumentParser
import FeatureServiceClient
import Foundation
import LoadRunner
import LocalFeatureServer
import Logging
import Prometheus

/// `featureload run`: runs a scenario file, prints a summary, writes reports, and exits by the verdict.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a scenario file against the embedded local service or a live feature service.",
        discussion: """
            Runs the file's scenarios (version 2: concurrently, each from its startTime or after startAfter; \
            version 1: one after another) with k6's executors, prints a summary table (requests, edits, edits/s, \
            latency percentiles, thresholds, errors, and the speed-ups the file compares), checks by query that the \
            service holds exactly the features each scenario added, and writes report.json, report.md and \
            report.junit.xml (one JUnit test case per threshold, gate and verification) to <out>/<name>-<UTC time>/.

            With `target: local` (or --target local) the embedded feature service starts in this process on \
            127.0.0.1 on a free port, over a temporary SQLite database unless --data names one; it shares the \
            machine's cores with the load generator, which the report notes.

            A live target may need a token: --token-env NAME (a token in that environment variable), or \
            --username-env/--password-env (generateToken, refreshed before expiry); or the file's `auth:` block with \
            ${ENV} values. For https with a private CA give --ca-file; --insecure skips certificate checks (with a \
            warning). Secrets never appear in reports or logs.

            As in k6: --vus N, --duration D and --iterations N replace that setting in every scenario whose \
            executor has it (vus: shared-iterations, per-vu-iterations, constant-vus; iterations: the two iteration \
            executors; duration: constant-vus, constant-arrival-rate) and are an error for any other scenario that \
            runs; --scenario NAME (repeatable) runs only those scenarios. ${NAME} and ${NAME:-default} in the file's \
            values come from the environment, or from -e NAME=VALUE, which wins. --tag key=value (repeatable) tags \
            every metric of the run. The reports record the overrides, the tags and the variables used (never the \
            value of one whose name contains TOKEN, PASSWORD, KEY or SECRET; such a variable may only fill auth:).

            Scale-out: run the same file on N generators, each with --execution-segment (k6's meaning: 0:1/4, \
            1/4:2/4, … or 25%:50%) and the same --execution-segment-sequence (0,1/4,2/4,3/4,1). Each runs its share of \
            every scenario's VUs, iterations and arrivals, numbered as the whole test numbers them, so no two write \
            the same feature; --start-at TIME (RFC 3339) starts them together. Each writes its own report, with its \
            segment.

            Live metrics: --metrics-listen HOST:PORT serves Prometheus metrics at http://HOST:PORT/metrics while the \
            run lasts (port 0 picks a free one, printed as "metrics: URL"): featureload_http_reqs_total, \
            featureload_http_req_duration_seconds, featureload_http_req_failed_total, featureload_edits_total, \
            featureload_edit_failed_total, featureload_edit_outcome_unknown_total, featureload_retries_total, \
            featureload_iterations_total, featureload_dropped_iterations_total and featureload_vus, labelled scenario, \
            operation, status, generator (the execution segment), run_id (--run-id, else --start-at, else the start \
            time) and the run's tags. --metrics-linger D keeps the endpoint up D after the reports are written. With \
            target local the embedded service's featureload_server_* series are served there too.

            Ctrl-C (or SIGTERM) stops the run: requests in flight are cancelled, and the reports are still written \
            with what ran so far (exit code 130).

            \(ExitStatus.helpText)
            """
    )

    @Argument(help: ArgumentHelp("The scenario file (YAML).", valueName: "scenario.yaml"))
    var scenarioFile: String

    @Option(name: .long, help: ArgumentHelp("Override the file's target: `local`, or the URL of a live …/FeatureServer.", valueName: "local|url"))
    var target: String?

    @Option(
        name: .long, parsing: .singleValue,
        help: ArgumentHelp(
            "Where results go, repeatable: a directory for the report folders (default Reports), and csv=FILE or json=FILE to stream one line per request as the run goes (gzipped when FILE ends in .gz; columns in the README).",
            valueName: "dir|csv=file|json=file"))
    var out: [String] = []

    /// The directory for report folders: the `--out` that names no raw-sample file.
    var reportDirectory: String { out.last { RawSampleDestination(option: $0) == nil } ?? "Reports" }

    /// The raw-sample files `--out csv=…`/`json=…` name.
    var rawOutputs: [RawSampleDestination] { out.compactMap(RawSampleDestination.init(option:)) }

    @Option(
        name: .long, parsing: .singleValue,
        help: ArgumentHelp("A report format to write besides report.json, repeatable (default: all): md, junit, html.", valueName: "format"),
        transform: ReportFormat.argument)
    var formats: [ReportFormat] = ReportFormat.allCases

    @Flag(name: .long, help: "Print only the report paths, the verdict and why it failed, not the progress and summary table.")
    var quiet = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How often to print progress lines when standard output is not a terminal (on a terminal the lines update in place every second).",
            valueName: "duration"),
        transform: ProgressDisplay.interval)
    var progressInterval: Duration = .seconds(10)

    @Option(
        name: .long,
        help: ArgumentHelp(
            "This generator's share of the test, as k6 gives it: FROM:TO (1/4:2/4, 25%:50%, 0.25:0.5) or TO (from 0); default 0:1.",
            valueName: "from:to"))
    var executionSegment: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Every segment the test is split into, as points: 0,1/4,2/4,3/4,1 (give all generators the same); default: the segment and the rest.",
            valueName: "points"))
    var executionSegmentSequence: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Start the load at this time (RFC 3339, e.g. 2026-11-25T15:30:00Z), so that generators begin together.", valueName: "time")
    )
    var startAt: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Run the test as N generator processes on this machine, each one execution segment, with one progress line summing them, and merge their reports (default 1).",
            valueName: "n"))
    var generators = 1

    /// Where a generator of `run --generators N` keeps its progress for the parent to show (set by the parent).
    @Option(name: .long, help: .hidden)
    var progressFile: String?

    @OptionGroup var scenarioOptions: ScenarioFileOptions
    @OptionGroup var tagOptions: RunTagOptions
    @OptionGroup var metricsOptions: LiveMetricsOptions
    @OptionGroup var targetOptions: TargetOptions
    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if out.filter({ RawSampleDestination(option: $0) == nil }).count > 1 {
            throw ValidationError("--out names more than one report directory; give one, and csv=FILE or json=FILE for request samples")
        }
        guard (1...64).contains(generators) else { throw ValidationError("--generators must be 1…64, got \(generators)") }
        if generators > 1 && (executionSegment != nil || executionSegmentSequence != nil || startAt != nil) {
            throw ValidationError(
                "--generators N gives each generator its segment and start; leave out --execution-segment, --execution-segment-sequence and --start-at"
            )
        }
        if generators > 1 && metricsOptions.metricsListen != nil {
            throw ValidationError(
                "--metrics-listen serves one generator's metrics, not the sum of --generators N: run the generators as separate processes (--execution-segment, --execution-segment-sequence, --start-at), each with its own --metrics-listen and the same --run-id, as the Kubernetes Job in deploy/ does, and sum them in Prometheus"
            )
        }
        do {
            _ = try segmentTuple()
        } catch {
            throw ValidationError(error.description)
        }
        if let startAt {
            guard let start = Self.date(startAt) else {
                throw ValidationError("--start-at \(startAt): write an RFC 3339 time such as 2026-11-25T15:30:00Z")
            }
            // It lines generators up; a start days away is a typo that would hold a CI job until it times out.
            guard start.timeIntervalSinceNow <= Self.longestStartWait else {
                throw ValidationError(
                    "--start-at \(startAt) is more than 24 hours away; give a time within the next 24 hours (it starts generators together)")
            }
        }
    }

    /// The segment this process runs, within its sequence.
    func segmentTuple() throws(ExecutionSegmentError) -> ExecutionTuple {
        guard executionSegment != nil || executionSegmentSequence != nil else { return .whole }
        // Without the sequence each generator would stripe its share on its own, and two of them could own the same
        // iteration numbers (0:1/4 and 1/2:3/4 alone both own 1, 5, 9, …): every generator must be given the same one.
        guard let segmentText = executionSegment else {
            throw ExecutionSegmentError(
                "--execution-segment-sequence needs --execution-segment: give this generator's segment, one of the sequence's")
        }
        if executionSegmentSequence == nil, try ExecutionSegment(parsing: segmentText) != .whole {
            throw ExecutionSegmentError(
                "--execution-segment \(segmentText) needs --execution-segment-sequence, the same on every generator (e.g. 0,1/4,2/4,3/4,1), so that no two generators run the same iterations"
            )
        }
        let segment = try executionSegment.map { text throws(ExecutionSegmentError) in try ExecutionSegment(parsing: text) }
        let sequence = try executionSegmentSequence.map { text throws(ExecutionSegmentError) in try ExecutionSegmentSequence(parsing: text) }
        return try ExecutionTuple(segment: segment, sequence: sequence)
    }

    /// The furthest ahead `--start-at` may be, in seconds.
    static let longestStartWait: TimeInterval = 24 * 3600

    static func date(_ text: String) -> Date? {
        (try? Date(text, strategy: .iso8601)) ?? (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
    }

    func run() async throws {
        let logger = logging.makeLogger(label: "featureload.run")
        let serverLogger = LoggingOptions.serverLogger(beside: logger)
        let plan: ScenarioPlan
        do {
            plan = try ScenarioFile.load(scenarioFile, options: scenarioOptions.parseOptions(tags: (try? tagOptions.tags()) ?? [:]))
        } catch {
            printError(String(describing: error))
            throw ExitStatus.invalidInput.code
        }
        let settings: TargetSettings
        let rawOutput: RawSampleWriter?
        let metrics: (endpoint: MetricsEndpoint, factory: PrometheusMetricsFactory)?
        do {
            var resolved = try TargetResolution.settings(plan: plan, file: scenarioFile, targetOverride: target, options: targetOptions)
            rawOutput = try openOutputs(reading: resolved)
            metrics = try await metricsOptions.start(logger: logger)
            // The embedded service's own view, on the same endpoint.
            resolved.localMetrics = metrics.map { ServerMetrics(factory: $0.factory) }
            settings = resolved
        } catch {
            printError("featureload run: \(UserMessage.describe(error))")
            throw ExitStatus.invalidInput.code
        }
        if settings.tls.isInsecure { printError("featureload run: warning: TLS certificates are not verified (--insecure)") }
        let display = ProgressDisplay(mode: ProgressDisplay.automatic(quiet: quiet, interval: progressInterval))
        let planFile = scenarioFile
        let segment = (try? segmentTuple()) ?? .whole
        let start = startAt.flatMap(Self.date)
        let runId = metricsOptions.resolvedRunId(startAt: start)
        let liveMetrics = metrics.map { LiveRunMetrics(factory: $0.factory, runId: runId, generator: segment.segment.description) }
        liveMetrics?.announce(plan)
        let progressFile = self.progressFile.map(GeneratorProgressFile.init(path:))
        let report: RunReport
        let interrupted: Bool
        do {
            let generators = self.generators
            (report, interrupted) = try await InterruptSignals.cancellingWork {
                if generators > 1 {
                    return try await runGenerators(
                        generators, scenarios: plan.scenarios.map(\.name), settings: settings, serverLogger: serverLogger, display: display,
                        rawOutput: rawOutput)
                }
                return try await withTarget(settings, serverLogger: serverLogger) { connected in
                    let info = RunReport.TargetInfo(
                        kind: connected.isLocal ? "local" : "live", serviceURL: connected.serviceURL, dataset: connected.dataset,
                        notes: connected.notes)
                    var runner = ScenarioRunner(
                        plan: plan, planFile: planFile,
                        connection: ServiceConnection(
                            url: connected.serviceURL, transport: connected.transport, authentication: connected.authentication),
                        target: info, clock: ContinuousClock(), toolVersion: Featureload.version)
                    runner.segment = segment
                    runner.rawOutput = rawOutput
                    runner.liveMetrics = liveMetrics
                    try await Self.waitForStart(start, as: startAt, display: display)
                    var report = try await runner.run { Self.show($0, on: display, keeping: progressFile) }
                    if let start {
                        let late = Double(report.startedAtEpochMilliseconds) / 1000 - start.timeIntervalSince1970
                        report.notes.append(String(format: "started %.3f s after --start-at %@", late, startAt ?? ""))
                    }
                    return report
                }
            }
        } catch let error as ExitCode {
            throw error
        } catch {
            printError("featureload run: \(UserMessage.describe(error))")
            throw ExitStatus.invalidInput.code
        }

        display.finish()
        try await metricsOptions.lingering(metrics?.endpoint) { try await finish(report, interrupted: interrupted, rawOutput: rawOutput) }
    }

    /// Sleeps until `--start-at`'s time, if it is still ahead, saying so with the time as `text` wrote it.
    private static func waitForStart(_ start: Date?, as text: String?, display: ProgressDisplay) async throws {
        guard let start, start.timeIntervalSinceNow > 0 else { return }
        let wait = start.timeIntervalSinceNow
        display.message("waiting \(String(format: "%.1f", wait)) s for --start-at \(text ?? "")")
        try await Task.sleep(for: .seconds(wait))
    }

    /// Closes the request samples, writes the reports, prints the summary and the paths, tells the CI, and exits by
    /// the verdict.
    private func finish(_ report: RunReport, interrupted: Bool, rawOutput: RawSampleWriter?) async throws {
        do {
            try await rawOutput?.finish()
        } catch {
            printError("featureload run: \(UserMessage.describe(error))")
        }
        let written = [ReportFormat.json] + formats.filter { $0 != .json }
        let folder = try ReportWriter.write(report, under: reportDirectory, formats: written)
        if !quiet {
            print(ReportRenderer.summary(report))
        } else {
            print(report.verdict.passed ? "result: PASS" : "result: FAIL\n" + report.verdict.failures.map { "  - \($0)" }.joined(separator: "\n"))
        }
        for format in written { print("report: \(folder)/\(format.fileName)") }
        for destination in rawOutputs {
            print("requests: \(OutputFile(destination.path, option: "--out").isStandardOutput ? "standard output" : destination.path)")
        }
        CIReporting.publish(report, folder: folder)
        if interrupted { throw ExitStatus.interrupted.code }
        if !report.verdict.passed { throw ExitStatus.failed.code }
    }

    /// Shows `event` on `display`, and keeps it in `file` for the parent of a generator of `run --generators N`.
    private static func show(_ event: RunEvent, on display: ProgressDisplay, keeping file: GeneratorProgressFile? = nil) {
        file?.record(event)
        switch event {
        case .metadataLoaded(let service, let layers):
            display.message("target: \(service) (\(layers.joined(separator: ", ")))")
        case .scenarioStarted(let spec):
            display.message("running \(spec.name): \(describe(spec)) …")
        case .scenarioFinished(let spec, let view):
            var line =
                "  \(spec.name) done in \(String(format: "%.2f", view.record.durationSeconds)) s: \(view.requests) requests (\(view.failedRequests) failed), \(view.editsApplied) edits ok, \(view.editsFailed) edits failed"
            if view.droppedIterations > 0 { line += ", \(view.droppedIterations) iterations dropped" }
            if view.cutOffRequests > 0 { line += ", \(view.cutOffRequests) requests cut off still waiting" }
            display.message(line)
        case .progress(let scenarios):
            display.update(scenarios)
        }
    }

    /// One line about what a scenario will do.
    static func describe(_ spec: ScenarioSpec) -> String {
        let work: String
        if spec.operations.count == 1, let op = spec.operations.first {
            if case .applyEdits(let edits) = op.settings, edits.updates == 0 && edits.deletes == 0 {
                work = "× \(edits.adds) adds"
            } else {
                work = "of \(op.label)"
            }
        } else {
            work = "of a mix of " + spec.operations.map { "\($0.label) (\($0.weight))" }.joined(separator: ", ")
        }
        let layers = spec.layers.map(String.init).joined(separator: ", ")
        return spec.executor.planDescription(work: work, layers: layers)
    }
}

/// Prints a progress line and flushes it, so it reaches a pipe (CI logs, `| tee`) as it happens.
func progress(_ line: String) {
    print(line)
    fflush(nil)
}
