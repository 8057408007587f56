import Hummingbird
public import Logging
import ServiceLifecycle
import UnixSignals

/// Starts the local feature service, waits until it listens, runs `body`, then shuts down cleanly.
///
/// The server runs in a child task of the caller; `body` gets the bound endpoint (port 0 resolves to the real
/// ephemeral port). When `body` returns or throws, the server stops gracefully (in-flight requests finish), the
/// database is closed intact, and a temporary database is deleted.
///
/// ```swift
/// let count = try await withLocalFeatureServer(.init(), logger: logger) { endpoint in
///     try await runScenario(against: endpoint.serviceURL("parks"))
/// }
/// ```
/// - Parameters:
///   - configuration: Address, database, dataset and limits.
///   - logger: Receives server and request-failure logs.
///   - body: Runs while the server listens.
/// - Returns: What `body` returns.
/// - Throws: ``LocalFeatureServerError`` when the dataset is unknown, the database cannot be opened or the address
///   cannot be bound; whatever `body` throws; `CancellationError` if the task is cancelled.
public func withLocalFeatureServer<T: Sendable>(
    _ configuration: LocalFeatureServerConfiguration,
    logger: Logger,
    _ body: @Sendable (LocalFeatureServerEndpoint) async throws -> T
) async throws -> T {
    let session = try ServerSession.open(configuration, logger: logger)
    let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
    let application = session.makeApplication(logger: logger) { port in
        portContinuation.yield(port)
        portContinuation.finish()
    }
    let group = ServiceGroup(configuration: shutdownConfiguration(application, signals: [], configuration: configuration, logger: logger))
    do {
        let result = try await withThrowingTaskGroup(of: Void.self, returning: T.self) { tasks in
            tasks.addTask {
                defer { portContinuation.finish() }
                try await group.run()
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else {
                try Task.checkCancellation()
                // The server stopped before it listened: report why.
                var reason = "the server stopped before listening"
                do { try await tasks.waitForAll() } catch { reason = "\(error)" }
                throw LocalFeatureServerError.bind(host: configuration.host, port: configuration.port, reason: reason)
            }
            do {
                let value = try await body(session.endpoint(port: port))
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return value
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                throw error
            }
        }
        await session.close(logger: logger)
        return result
    } catch {
        await session.close(logger: logger)
        throw error
    }
}

/// Runs the local feature service until SIGINT or SIGTERM, calling `onListening` once it is bound.
///
/// On a signal the server shuts down gracefully: in-flight requests finish (those still running after
/// ``LocalFeatureServerConfiguration/Connections/shutdownGracePeriod`` are cancelled), the database is closed intact,
/// and a temporary database is deleted. For `featureload serve`.
/// - Parameters:
///   - configuration: Address, database, dataset and limits.
///   - logger: Receives server and request-failure logs.
///   - onListening: Called once with the bound endpoint (e.g. to print the service URL).
/// - Throws: ``LocalFeatureServerError`` when the dataset is unknown, the database cannot be opened or the address
///   cannot be bound; errors of the HTTP server.
public func runLocalFeatureServer(
    _ configuration: LocalFeatureServerConfiguration,
    logger: Logger,
    onListening: @Sendable (LocalFeatureServerEndpoint) async -> Void
) async throws {
    let session = try ServerSession.open(configuration, logger: logger)
    let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
    // The application only reports the port; `onListening` runs here, in the caller's task, so it never escapes.
    let application = session.makeApplication(logger: logger) { port in
        portContinuation.yield(port)
        portContinuation.finish()
    }
    do {
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                defer { portContinuation.finish() }
                // Graceful shutdown on SIGTERM and SIGINT; requests still running after the grace period are cancelled.
                let group = ServiceGroup(
                    configuration: shutdownConfiguration(application, signals: [.sigterm, .sigint], configuration: configuration, logger: logger))
                try await group.run()
            }
            var iterator = ports.makeAsyncIterator()
            let port = await iterator.next()
            if let port { await onListening(session.endpoint(port: port)) }
            do {
                try await tasks.waitForAll()
            } catch {
                guard port != nil else {
                    throw LocalFeatureServerError.bind(host: configuration.host, port: configuration.port, reason: "\(error)")
                }
                throw error
            }
        }
    } catch {
        await session.close(logger: logger)
        throw error
    }
    await session.close(logger: logger)
}

/// The service group settings of a server run: `signals` start a graceful shutdown, which escalates to cancelling
/// the requests still in flight after the configured grace period. Pure.
func shutdownConfiguration(
    _ application: some Service, signals: [UnixSignal], configuration: LocalFeatureServerConfiguration, logger: Logger
) -> ServiceGroupConfiguration {
    var group = ServiceGroupConfiguration(services: [application], gracefulShutdownSignals: signals, logger: logger)
    group.maximumGracefulShutdownDuration = configuration.connections.shutdownGracePeriod
    return group
}
