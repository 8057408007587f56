import FeatureModel
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// Carries out the ``FaultDecider``'s decision for each service request (everything but `/arcgis/admin` and the
/// token service): added latency, error answers, dropped connections, truncated answers, stalls, and per-edit
/// failures (through ``EditFaultInjection/current``).
///
/// An injected fault is announced by the `X-Featureload-Fault` header (when an answer is sent at all) and by a log
/// line at `notice` level naming the kinds and the path (never the query string, which may hold a token).
///
/// Flow of one request:
/// ```
/// decide ─▶ sleep(latency) ─▶ error answer ──────────────────────────────▶ answer + header
///                          ├▶ drop before handler ─▶ close, no answer
///                          ├▶ stall ─▶ sleep ─▶ handler ─────────────────▶ answer + header
///                          └▶ handler (edit failures armed) ─┬───────────▶ answer + header
///                                                           ├▶ drop after commit ─▶ close, no answer
///                                                           └▶ truncate ─▶ half the body, close
/// ```
struct FaultMiddleware: RouterMiddleware {
    typealias Context = FeatureServerRequestContext

    let controller: FaultController
    let logger: Logger
    /// Sleeps for added latency and stalls; a test clock may stand in.
    let clock: any Clock<Duration>
    /// Counts the faults injected, by operation and kind (`serve --metrics-listen`).
    var metrics: ServerMetrics? = nil

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard Self.isSubject(path) else { return try await next(request, context) }
        let decision = controller.decide(path: path)
        if decision.isNone { return try await next(request, context) }
        var kinds: [String] = []
        if decision.latency > .zero { kinds.append("latency") }
        if let action = decision.action { kinds.append(action.kind.rawValue) }
        if decision.editFailures != nil { kinds.append(FaultKind.editFailure.rawValue) }
        let label = kinds.joined(separator: ", ")
        let operation = ServerMetrics.operation(of: path)
        for kind in kinds where kind != FaultKind.editFailure.rawValue { metrics?.countFault(kind, operation: operation) }
        logger.notice(
            "fault injected",
            metadata: ["fault": "\(label)", "method": "\(request.method.rawValue)", "path": "\(path)", "latency": "\(decision.latency)"])
        if decision.latency > .zero { try await pause(decision.latency) }

        var response: Response
        switch decision.action {
        case .httpError(let status, let retryAfter)?:
            var headers: HTTPFields = [.featureloadFault: label]
            if let retryAfter { headers[.retryAfter] = String(retryAfter) }
            let reason = HTTPResponse.Status(code: status).reasonPhrase
            return .arcgisError(
                ArcGISError(
                    code: status, message: reason,
                    details: ["Injected fault: \(FaultAction.httpError(status: status, retryAfterSeconds: retryAfter).kind.rawValue)."]),
                status: HTTPResponse.Status(code: status), headers: headers)
        case .arcgisError(let code)?:
            let message = code == 503 ? "Service Unavailable" : "Unable to complete operation."
            return .arcgisError(
                ArcGISError(code: code, message: message, details: ["Injected fault: \(FaultAction.arcgisError(code: code).kind.rawValue)."]),
                headers: [.featureloadFault: label])
        case .dropBeforeHandler?:
            context.channel.close(mode: .all, promise: nil)
            return Response(status: .serviceUnavailable)
        case .stall(let duration)?:
            try await pause(duration)
            response = try await run(next, request, context, editFailures: decision.editFailures)
        case .dropAfterCommit?:
            _ = try await run(next, request, context, editFailures: decision.editFailures)
            context.channel.close(mode: .all, promise: nil)
            return Response(status: .serviceUnavailable)
        case .truncatedResponse?:
            response = try await run(next, request, context, editFailures: decision.editFailures)
            response = await Self.truncated(response, channel: context.channel)
        case nil:
            response = try await run(next, request, context, editFailures: decision.editFailures)
        }
        response.headers[.featureloadFault] = label
        return response
    }

    /// Sleeps for injected latency or a stall, cut short when the server shuts down, so stopping a server never waits
    /// out a stall (the stalled request then gets no answer, as a real server's would when it goes away).
    private func pause(_ duration: Duration) async throws {
        let clock = clock
        try await cancelWhenGracefulShutdown { try await clock.sleep(for: duration) }
    }

    private func run(
        _ next: (Request, Context) async throws -> Response, _ request: Request, _ context: Context, editFailures: EditFaultInjection?
    ) async throws -> Response {
        guard var editFailures else { return try await next(request, context) }
        guard let metrics else { return try await EditFaultInjection.$current.withValue(editFailures) { try await next(request, context) } }
        // This request's failed edits, counted by operation (they also count in the server's tally).
        let tally = FaultTally(parent: editFailures.tally)
        editFailures.tally = tally
        defer { metrics.countFault(FaultKind.editFailure.rawValue, operation: ServerMetrics.operation(of: request.uri.path), amount: tally.value) }
        return try await EditFaultInjection.$current.withValue(editFailures) { try await next(request, context) }
    }

    /// Whether faults apply to `path`: everything except `/arcgis/admin/…` and the token service.
    static func isSubject(_ path: String) -> Bool {
        guard mayContain(path, "admin") || mayContain(path, "generatetoken") else { return true }
        let lowered = path.lowercased()
        return !lowered.hasPrefix("/arcgis/admin") && !lowered.contains("generatetoken")
    }

    /// False only when `path`, lower-cased, cannot contain `word` (lower-case ASCII): it is ASCII and holds no
    /// case-insensitive match. A cheap test before lower-casing the whole path on every request.
    static func mayContain(_ path: String, _ word: StaticString) -> Bool {
        let bytes = path.utf8
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return true }
        return word.withUTF8Buffer { needle in
            guard let first = needle.first, bytes.count >= needle.count else { return false }
            var start = bytes.startIndex
            while let index = bytes[start...].firstIndex(where: { $0 | 0x20 == first }) {
                if bytes[index...].starts(with: needle, by: { $0 | 0x20 == $1 }) { return true }
                start = bytes.index(after: index)
            }
            return false
        }
    }

    /// `response` with its full `Content-Length` but only the first half of the body, after which the connection is
    /// closed: the client sees a transfer cut short.
    static func truncated(_ response: Response, channel: any Channel) async -> Response {
        let collector = BodyCollector()
        try? await response.body.write(collector)
        let body = collector.buffer
        let half = body.getSlice(at: body.readerIndex, length: body.readableBytes / 2) ?? ByteBuffer()
        var headers = response.headers
        headers[.contentLength] = String(body.readableBytes)
        return Response(
            status: response.status, headers: headers,
            body: ResponseBody(contentLength: body.readableBytes) { writer in
                try await writer.write(half)
                try await channel.close(mode: .all)
            })
    }
}

/// Gathers a response body in memory (for truncation).
private final class BodyCollector: ResponseBodyWriter, @unchecked Sendable {
    var buffer = ByteBuffer()

    func write(_ part: ByteBuffer) async throws {
        var part = part
        buffer.writeBuffer(&part)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
