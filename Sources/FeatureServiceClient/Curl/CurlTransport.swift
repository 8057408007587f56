import Synchronization

/// The libcurl transport: one curl multi handle on one dedicated thread, keep-alive connection reuse, and
/// per-request timing, built for load generation.
///
/// Any number of tasks may call ``send(_:)`` at once; the calls never block a Swift executor thread. Each request
/// enters a lock-protected queue; the driver thread adds it to libcurl and resumes the caller when it finishes.
/// Cancelling the calling task aborts the transfer. Requests beyond ``CurlTransportConfiguration/maxConnections``
/// concurrent ones wait inside libcurl for a free connection.
///
/// Lifetime: call ``shutdown()`` when done, or use ``withCurlTransport(configuration:isolation:_:)``, which does.
/// Dropping the last reference also stops the driver thread, without waiting for it.
///
/// ```swift
/// try await withCurlTransport { transport in
///     let service = FeatureService(url: serviceURL, transport: transport)
///     let info = try await service.load()
/// }
/// ```
public final class CurlTransport: HTTPTransport {
    /// Counters since the transport started.
    package struct Statistics: Sendable, Hashable {
        /// TCP connections opened; with keep-alive working this stays near the peak concurrency.
        package var connectionsOpened: Int
        /// Transfers libcurl finished, successfully or not (cancelled ones excluded).
        package var transfersCompleted: Int
    }

    /// The settings this transport was made with.
    public let configuration: CurlTransportConfiguration
    private let multi: CurlMulti

    /// Starts a transport and its driver thread.
    /// - Parameter configuration: Connection limits, timeouts, compression and user agent.
    /// - Throws: ``TransportError`` (kind ``TransportError/Kind/other``) when libcurl cannot be initialised.
    public init(configuration: CurlTransportConfiguration = .init()) throws {
        self.configuration = configuration
        multi = try CurlMulti(configuration: configuration)
        multi.start()
    }

    deinit {
        multi.requestStop()
    }

    /// Sends `request` over a pooled keep-alive connection and returns the response, whatever its HTTP status.
    ///
    /// Safe to call from any task, concurrently. Cancelling the calling task removes the transfer from libcurl
    /// (closing its connection if the transfer had started) and throws `CancellationError`.
    /// - Parameter request: The request; its `timeout` (or the configuration's) bounds the whole transfer.
    /// - Returns: The response, with ``HTTPResponse/timing`` filled in.
    /// - Throws: ``TransportError`` when no response arrived (connection refused, timeout, broken connection,
    ///   invalid URL or header, transport shut down); `CancellationError` when the task was cancelled.
    package nonisolated(nonsending) func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if let problem = Self.headerProblem(in: request.headers) {
            throw TransportError(.invalidRequest, url: request.url, message: problem, mayHaveBeenSent: false)
        }
        let transfer = CurlTransfer(request: configuration.compressRequestBodies ? RequestCompression.compressed(request) : request)
        let multi = self.multi
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                transfer.attach(continuation)
                multi.submit(transfer)
            }
        } onCancel: {
            multi.cancel(transfer)
        }
    }

    /// The driver thread as a task executor: tasks that send one request after another (load-generating VUs) and
    /// prefer it run between libcurl's rounds on the thread that receives their responses, so no thread is woken to
    /// resume them or to send their next request. Work that computes for long or blocks belongs elsewhere.
    package var taskExecutor: (any TaskExecutor)? { multi }

    /// Stops the driver thread after failing every outstanding request with ``TransportError/Kind/shutdown``;
    /// later calls to ``send(_:)`` fail the same way. Idempotent; returns once libcurl's handles are released.
    public func shutdown() async {
        await multi.shutdown()
    }

    /// Counters since the transport started; safe to read from any thread.
    package var statistics: Statistics {
        Statistics(
            connectionsOpened: multi.connectionsOpened.load(ordering: .relaxed),
            transfersCompleted: multi.transfersCompleted.load(ordering: .relaxed))
    }

    /// Why `headers` cannot be sent (a line break or NUL would split the header block), or nil.
    private static func headerProblem(in headers: [HTTPHeader]) -> String? {
        for header in headers {
            if header.name.isEmpty || header.name.utf8.contains(where: { $0 == 0x3A || $0 <= 0x20 }) {
                return "header name '\(header.name)' is empty or contains ':' or white space"
            }
            if header.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) {
                return "the value of header '\(header.name)' contains a line break"
            }
        }
        return nil
    }
}

/// Runs `body` with a new ``CurlTransport`` and shuts the transport down afterwards, whether `body` returns or throws.
///
/// - Parameters:
///   - configuration: The transport's settings.
///   - isolation: The caller's actor; `body` runs there.
///   - body: The work that uses the transport; the transport must not escape it.
/// - Returns: What `body` returns.
/// - Throws: ``TransportError`` when the transport cannot start; otherwise whatever `body` throws.
public func withCurlTransport<T>(
    configuration: CurlTransportConfiguration = .init(), isolation: isolated (any Actor)? = #isolation,
    _ body: (CurlTransport) async throws -> T
) async throws -> T {
    let transport = try CurlTransport(configuration: configuration)
    let result: T
    do {
        result = try await body(transport)
    } catch {
        await transport.shutdown()
        throw error
    }
    await transport.shutdown()
    return result
}
