/// Carries out HTTP requests: ``CurlTransport`` for real traffic, an in-memory fake in tests.
///
/// Implementations are `Sendable` and are called concurrently from many tasks.
package protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the response, whatever its HTTP status.
    ///
    /// A non-2xx status is not an error at this level; callers judge statuses and bodies.
    /// - Parameter request: The request.
    /// - Returns: The response.
    /// - Throws: ``TransportError`` when no response arrived; `CancellationError` when the calling task was
    ///   cancelled before the response arrived.
    ///
    /// `nonisolated(nonsending)`: it runs on the caller's executor, as the hot path above it does (a VU's iteration,
    /// ``FeatureLayerClient/applyEdits(_:options:)``), so a request costs no executor switch on the way in or out.
    nonisolated(nonsending) func send(_ request: HTTPRequest) async throws -> HTTPResponse

    /// An executor on which tasks that wait on this transport one request after another may run, to save the thread
    /// hops of each round trip; nil (the default) when the transport has none.
    var taskExecutor: (any TaskExecutor)? { get }
}

extension HTTPTransport {
    package var taskExecutor: (any TaskExecutor)? { nil }
}
