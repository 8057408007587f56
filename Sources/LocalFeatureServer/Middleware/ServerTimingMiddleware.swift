import Hummingbird

/// Adds `Server-Timing: app;dur=<ms>` to every answer: the time from the request reaching the router to the answer's
/// head, injected latency and stalls included (the W3C Server Timing header).
///
/// A load generator can set its own latency beside the service's: what it measures beyond `dur` is the network and
/// the generator itself. Answers that never reach the client (dropped connections) carry nothing.
struct ServerTimingMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let clock = ContinuousClock()
        let start = clock.now
        var response = try await next(request, context)
        response.headers[.serverTiming] = Self.value(start.duration(to: clock.now))
        return response
    }

    /// `app;dur=12.345`: milliseconds with microsecond resolution.
    static func value(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let microseconds = max(0, seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        let fraction = String(microseconds % 1000)
        return "app;dur=\(microseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
