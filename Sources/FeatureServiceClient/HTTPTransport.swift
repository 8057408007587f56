/// Carries out HTTP requests: ``CurlTransport`` for real traffic, an in-memory fake in tests.
///
/// Implementations are `Sendable` and are called concurrently from many tasks.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the response, whatever its HTTP status.
    ///
    /// A non-2xx status is not an error at this level; callers judge statuses and bodies.
    /// - Parameter request: The request.
    /// - Returns: The response.
    /// - Throws: ``TransportError`` when no response arrived; `CancellationError` when the calling task was
    ///   cancelled before the response arrived.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
