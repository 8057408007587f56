import ArgumentParser
import FeatureServiceClient
import Foundation
import LoadRunner
import LocalFeatureServer
import Logging

/// `featureload run`: runs a scenario file, prints a summary, writes reports, and exits by the verdict.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a scenario file against the embedded local service or a live feature service.",
        discussion: """
            Runs each scenario in the file in order, prints a summary table (requests, edits, edits/s, latency \
            percentiles, errors, and the speed-ups the file compares), checks by query that the service holds \
            exactly the features that were added, and writes report.json and report.md to \
            <out>/<name>-<UTC time>/.

            With `target: local` (or --target local) the embedded feature service starts in this process on \
            127.0.0.1 on a free port, over a temporary SQLite database unless --data names one; it shares the \
            machine's cores with the load generator, which the report notes.

            Ctrl-C (or SIGTERM) stops the run: requests in flight are cancelled, and the reports are still written \
            with what ran so far (exit code 130).

            Exit codes: 0 every gate passed; 1 a gate failed; 2 the scenario file is invalid or the run could not start; \
            130 interrupted.
            """
    )

    @Argument(help: ArgumentHelp("The scenario file (YAML).", valueName: "scenario.yaml"))
    var scenarioFile: String

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Override the file's target: `local`, or the URL of a live …/FeatureServer.", valueName: "local|url"))
    var target: String?

    @Option(name: .long, help: ArgumentHelp("Directory for report folders.", valueName: "dir"))
    var out: String = "Reports"

    @Option(
        name: .long,
        help: ArgumentHelp(
            "SQLite file for the embedded service (created if missing, kept afterwards). Default: a temporary file.",
            valueName: "path"))
    var data: String?

    @Flag(name: .long, help: "Print only the report paths and the verdict, not the summary table.")
    var quiet = false

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let logger = logging.makeLogger(label: "featureload.run")
        // The embedded server's own log is for debugging it: at the default level its shutdown chatter after Ctrl-C
        // (connections closed under it) would read like errors of the run. Failures to start are thrown, not logged.
        let serverLogger = {
            var server = Logger(label: "featureload.serve")
            if logger.logLevel > .debug { server.logLevel = .critical }
            return server
        }()
        var plan: ScenarioPlan
        do {
            plan = try ScenarioFile.load(scenarioFile)
        } catch {
            printError(String(describing: error))
            throw ExitCode(2)
        }
        if let target {
            if target == "local" {
                if case .url = plan.target { plan.target = .local(dataset: "parks") }
            } else {
                var url = target
                while url.hasSuffix("/") { url.removeLast() }
                guard url.lowercased().hasPrefix("http"), url.lowercased().hasSuffix("/featureserver") else {
                    printError("--target: '\(target)' is not `local` or a …/FeatureServer URL. Fix: e.g. --target https://host/arcgis/rest/services/Parks/FeatureServer")
                    throw ExitCode(2)
                }
                plan.target = .url(url)
            }
        }
        let finalPlan = plan
        let maxConnections = max(plan.scenarios.map(\.vus).max() ?? 1, 1)
        let report: RunReport
        let interrupted: Bool
        do {
            (report, interrupted) = try await InterruptSignals.cancellingWork {
                try await withCurlTransport(configuration: CurlTransportConfiguration(maxConnections: maxConnections)) {
                transport in
                switch finalPlan.target {
                case .url(let url):
                    return try await execute(
                        finalPlan, serviceURL: url, info: RunReport.TargetInfo(kind: "live", serviceURL: url), transport: transport)
                case .local(let dataset):
                    let configuration = LocalFeatureServerConfiguration(databasePath: data, dataset: dataset)
                    return try await withLocalFeatureServer(configuration, logger: serverLogger) { endpoint in
                        let url = endpoint.serviceURL(dataset)
                        let cores = ProcessInfo.processInfo.activeProcessorCount
                        let info = RunReport.TargetInfo(
                            kind: "local", serviceURL: url, dataset: dataset,
                            notes: [
                                "embedded feature service in this process on \(endpoint.host):\(endpoint.port), "
                                    + "SQLite \(data ?? "temporary file"); it shared the machine's \(cores) cores with the load generator"
                            ])
                        return try await execute(finalPlan, serviceURL: url, info: info, transport: transport)
                    }
                }
                }
            }
        } catch let error as ExitCode {
            throw error
        } catch {
            printError("featureload run: \(error)")
            throw ExitCode(2)
        }

        let folder = try ReportWriter.write(report, under: out)
        if !quiet { print(ReportRenderer.summary(report)) } else { print(report.verdict.passed ? "result: PASS" : "result: FAIL") }
        print("report: \(folder)/report.json")
        print("report: \(folder)/report.md")
        if interrupted { throw ExitCode(130) }
        if !report.verdict.passed { throw ExitCode(1) }
    }

    private func execute(
        _ plan: ScenarioPlan, serviceURL: String, info: RunReport.TargetInfo, transport: CurlTransport
    ) async throws -> RunReport {
        let quiet = quiet
        let runner = ScenarioRunner(
            plan: plan, planFile: scenarioFile, serviceURL: serviceURL, target: info, transport: transport,
            clock: ContinuousClock(), toolVersion: Featureload.version)
        return try await runner.run { event in
            guard !quiet else { return }
            switch event {
            case .metadataLoaded(let service, let layers):
                progress("target: \(service) (\(layers.joined(separator: ", ")))")
            case .scenarioStarted(let spec):
                progress(
                    "running \(spec.name): \(spec.iterations) iterations × \(spec.batchSize) adds, \(spec.vus) VUs, layer \(spec.layer) …"
                )
            case .scenarioFinished(let result):
                progress(
                    "  done in \(String(format: "%.2f", result.durationSeconds)) s: \(result.metrics.editsSucceeded) edits ok, \(result.metrics.editsFailed) failed"
                )
            }
        }
    }
}

/// Prints a progress line and flushes it, so it reaches a pipe (CI logs, `| tee`) as it happens.
private func progress(_ line: String) {
    print(line)
    fflush(nil)
}
