import ArgumentParser
import Foundation
import LoadRunner
import Logging
import Prometheus

/// `--metrics-listen HOST:PORT`, `--metrics-linger DURATION` and `--run-id ID` of `run` and `apply`: a Prometheus
/// `/metrics` endpoint while the command works, and how its series say which test they belong to.
struct LiveMetricsOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Serve Prometheus metrics at http://HOST:PORT/metrics while this runs (port 0 picks a free one; the address is printed).",
            valueName: "host:port"))
    var metricsListen: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Keep the metrics endpoint up this long after the work ends, so the last scrape sees the final counts (e.g. 30s; default 0).",
            valueName: "duration"),
        transform: { try DurationOption.parse($0, option: "--metrics-linger", allowZero: true, examples: "15s or 1m") })
    var metricsLinger: Duration = .zero

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The run_id label of every metric: give all generators of one test the same (default: the --start-at time if given, else this process's start in UTC).",
            valueName: "id"))
    var runId: String?

    func validate() throws {
        if let metricsListen { _ = try MetricsEndpoint.address(metricsListen) }
        if let runId, runId.isEmpty { throw ValidationError("--run-id must not be empty") }
    }

    /// The `run_id` label: `--run-id`, else the `--start-at` time (every generator of a test shares it) as UTC
    /// `2026-11-25T15:30:00Z`, else `now` the same way.
    func resolvedRunId(startAt: Date?, now: Date = Date()) -> String {
        if let runId { return runId }
        return (startAt ?? now).formatted(.iso8601)
    }

    /// Starts the endpoint when `--metrics-listen` is given, printing its address (`metrics: http://…/metrics`).
    /// - Returns: The endpoint and a swift-metrics factory over its registry; nil when no endpoint was asked for.
    /// - Throws: `MetricsEndpointError` when the address cannot be bound.
    func start(logger: Logger) async throws -> (endpoint: MetricsEndpoint, factory: PrometheusMetricsFactory)? {
        guard let metricsListen else { return nil }
        let registry = PrometheusCollectorRegistry()
        let endpoint = try await MetricsEndpoint.start(listen: metricsListen, registry: registry, logger: logger)
        progress("metrics: \(endpoint.url)")
        return (endpoint, MetricsEndpoint.factory(registry))
    }

    /// Runs `work`, then keeps `endpoint` up for `--metrics-linger` and stops it, whether `work` threw or not.
    func lingering(_ endpoint: MetricsEndpoint?, _ work: () async throws -> Void) async throws {
        do {
            try await work()
        } catch {
            await endpoint?.stop(after: metricsLinger)
            throw error
        }
        await endpoint?.stop(after: metricsLinger)
    }
}
