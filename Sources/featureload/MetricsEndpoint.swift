import ArgumentParser
import Foundation
import Hummingbird
import LoadRunner
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle

/// The `/metrics` listener of `--metrics-listen HOST:PORT`: a small Hummingbird server that renders a Prometheus
/// registry in the text exposition format on every scrape, beside whatever the command does.
///
/// The registry is this command's own (no process-global `MetricsSystem` bootstrap): the command hands
/// ``factory`` to the code that counts. The server runs in a task of its own until ``stop(after:)``.
final class MetricsEndpoint: Sendable {
    let registry: PrometheusCollectorRegistry
    /// `http://HOST:PORT/metrics`, with the bound port (port 0 picks a free one).
    let url: String
    private let group: ServiceGroup
    private let server: Task<Void, any Error>

    private init(registry: PrometheusCollectorRegistry, url: String, group: ServiceGroup, server: Task<Void, any Error>) {
        self.registry = registry
        self.url = url
        self.group = group
        self.server = server
    }

    /// A swift-metrics factory over `registry`, whose timers are histograms with buckets from 1 ms to 60 s.
    static func factory(_ registry: PrometheusCollectorRegistry) -> PrometheusMetricsFactory {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = LiveMetricName.durationBuckets
        return factory
    }

    /// `HOST:PORT` split; `[::1]:9090` for IPv6, `:9090` for every interface.
    /// - Throws: `ValidationError` naming `option` when the text is not HOST:PORT with a port 0…65535.
    static func address(_ text: String, option: String = "--metrics-listen") throws -> (host: String, port: Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
            throw ValidationError("\(option) '\(text)' is not HOST:PORT; write e.g. 127.0.0.1:9464, or 127.0.0.1:0 for a free port")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host.isEmpty ? "0.0.0.0" : host, port)
    }

    /// Starts serving `registry` on `listen` (HOST:PORT) and returns once the port is bound.
    /// - Throws: `ValidationError` for an address that is not HOST:PORT; `MetricsEndpointError` when it cannot be bound.
    static func start(listen: String, registry: PrometheusCollectorRegistry, logger: Logger) async throws -> MetricsEndpoint {
        let (host, port) = try address(listen)
        let router = Router()
        router.get("metrics") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? port)
                continuation.finish()
            },
            logger: logger)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [application], gracefulShutdownSignals: [], logger: logger))
        let server = Task {
            defer { continuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next() else {
            let reason: String
            switch await server.result {
            case .failure(let error): reason = "\(error)"
            case .success: reason = "the listener stopped before it was bound"
            }
            throw MetricsEndpointError("could not listen on \(listen) for --metrics-listen: \(reason)")
        }
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return MetricsEndpoint(registry: registry, url: "http://\(hostPart):\(bound)/metrics", group: group, server: server)
    }

    /// Keeps answering scrapes for `linger` (so the last scrape sees the final counts), then stops the listener.
    func stop(after linger: Duration) async {
        // What was printed reaches a pipe now, not when the process exits after the linger.
        fflush(nil)
        if linger > .zero { try? await Task.sleep(for: linger) }
        await group.triggerGracefulShutdown()
        _ = await server.result
    }
}

/// The `--metrics-listen` address cannot be served.
struct MetricsEndpointError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
