import Hummingbird

/// Counts every request and its duration in ``ServerMetrics``, by operation and status: the outermost middleware,
/// so the time is the whole answer's, injected latency and stalls included. A request that throws (its connection
/// dropped by an injected fault) counts with status 0.
struct ServerMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let clock = ContinuousClock()
        let start = clock.now
        let operation = ServerMetrics.operation(of: request.uri.path)
        do {
            let response = try await next(request, context)
            metrics.record(operation: operation, status: response.status.code, duration: start.duration(to: clock.now))
            return response
        } catch {
            metrics.record(operation: operation, status: 0, duration: start.duration(to: clock.now))
            throw error
        }
    }
}
