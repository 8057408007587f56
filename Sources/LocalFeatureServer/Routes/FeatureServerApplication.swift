import FeatureModel
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1

/// The Hummingbird shell around ``FeatureServerResponder``: one catch-all route for GET and POST behind a short
/// middleware chain.
///
/// ```
/// request ─▶ [ServerMetricsMiddleware] ─▶ ServerTimingMiddleware ─▶ ArcGISErrorMiddleware ─▶ BrowserGuardMiddleware ─▶ TokenAuthMiddleware ─▶ FaultAdminMiddleware ─▶ FaultMiddleware ─▶ responder
///            (--metrics-listen)          (Server-Timing header)    (anything thrown → envelope) (Host, Origin, POST-only)   (--users only)      (/arcgis/admin/…)        (faults, stats)
/// ```
/// The body is read once, up to ``LocalFeatureServerConfiguration/Limits/maximumRequestBodySize``; a larger one
/// is answered with the envelope (code 413) instead of being processed. A `multipart/form-data` body is parsed as it
/// streams in (``FormBody/read(_:limits:)``): file parts over 256 KiB go to temporary files, bounded by
/// ``LocalFeatureServerConfiguration/Limits/maximumAttachmentSize`` and removed once the request is answered; an
/// attachment download is streamed out of the database (``Response/featureService(_:)``).
enum FeatureServerApplication {
    /// Largest request body accepted by default (applyEdits batches of thousands of features fit easily).
    static let maximumBodySize = LocalFeatureServerConfiguration.Limits().maximumRequestBodySize

    /// The router serving `responder` with `configuration`'s token security, faults and limits.
    ///
    /// The fault settings and counters live as long as the router; the admin endpoint replaces the settings.
    static func makeRouter(
        responder: FeatureServerResponder, configuration: LocalFeatureServerConfiguration, logger: Logger,
        clock: any Clock<Duration> = ContinuousClock()
    ) -> Router<FeatureServerRequestContext> {
        let limit = configuration.limits.maximumRequestBodySize
        let faults = FaultController(configuration.faults)
        let router = Router(context: FeatureServerRequestContext.self)
        if let metrics = configuration.metrics { router.add(middleware: ServerMetricsMiddleware(metrics: metrics)) }
        router.add(middleware: ServerTimingMiddleware())
        router.add(middleware: ArcGISErrorMiddleware())
        router.add(
            middleware: BrowserGuardMiddleware(
                policy: configuration.browser, bindHost: configuration.host, scheme: configuration.tls == nil ? "http" : "https"))
        if configuration.auth.isEnabled {
            router.add(
                middleware: TokenAuthMiddleware(
                    tokens: TokenService(configuration.auth), throttle: SignInThrottle(now: configuration.auth.now), settings: configuration.auth,
                    bodyLimit: limit, statistics: faults, logger: logger,
                    scheme: configuration.tls == nil ? "http" : "https"))
        }
        if configuration.faults.isAdminEnabled {
            router.add(middleware: FaultAdminMiddleware(controller: faults, bodyLimit: limit, logger: logger))
        }
        router.add(middleware: FaultMiddleware(controller: faults, logger: logger, clock: clock, metrics: configuration.metrics))
        var responder = responder
        responder.maximumAttachmentSize = configuration.limits.maximumAttachmentSize
        let limits = configuration.limits
        let handler: @Sendable (Request, FeatureServerRequestContext) async throws -> Response = { [responder] request, _ in
            var request = request
            // Multipart bodies are parsed as they stream in (file parts spill to temporary files); others are collected.
            let content = try await FormBody.read(&request, limits: limits)
            defer { content.form?.removeFiles() }
            let answer = await responder.respond(
                to: ServerRequest(
                    method: request.method.rawValue,
                    path: request.uri.path,
                    query: request.uri.query,
                    contentType: request.headers[.contentType],
                    body: content.body,
                    form: content.form
                )
            )
            return .featureService(answer)
        }
        router.get("**", use: handler)
        router.post("**", use: handler)
        return router
    }
}

/// Renders every error thrown below it as the ArcGIS envelope (HTTP 200; the envelope `code` carries the status).
///
/// When the request's body was refused part-way — over a size limit (413) or malformed on the wire (a bad chunk:
/// 400) — the rest of it is not read: the answer says `Connection: close` and the connection is closed once the
/// answer is written, instead of draining an unbounded body or parsing what follows a broken one.
struct ArcGISErrorMiddleware: RouterMiddleware {
    typealias Context = FeatureServerRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as ServiceError {
            return error.error.code == 413 ? Self.closing(error, context: context) : try error.response(from: request, context: context)
        } catch let error as HTTPError {
            let code = Int(error.status.code)
            let message = code == 404 ? "Requested operation is not supported or resource does not exist." : error.status.reasonPhrase
            let detail = error.body ?? "\(request.method.rawValue) \(request.uri.path): \(error.status.reasonPhrase)"
            let envelope = ServiceError(ArcGISError(code: code, message: message, details: [detail]))
            return code == 413 ? Self.closing(envelope, context: context) : try envelope.response(from: request, context: context)
        } catch is NIOTooManyBytesError {
            return Self.closing(RequestBodyLimit.tooLarge(limit: FeatureServerApplication.maximumBodySize), context: context)
        } catch let error as HTTPParserError {
            return Self.closing(ServiceError.malformedBody("the HTTP message is malformed (\(error))"), context: context)
        } catch {
            return try ServiceError.internalError("\(error)").response(from: request, context: context)
        }
    }

    /// The envelope of `error`, after which the connection closes.
    static func closing(_ error: ServiceError, context: Context) -> Response {
        let body = FeatureServerResponder.renderError(error.error).body
        let channel = context.channel
        return Response(
            status: .ok, headers: [.contentType: FeatureServerResponder.contentType, .connection: "close"],
            body: ResponseBody(contentLength: body.readableBytes) { writer in
                try await writer.write(body)
                try await writer.finish(nil)
                // Queued on the event loop after the answer's writes, so the answer goes out first.
                channel.close(promise: nil)
            })
    }
}

extension ServiceError: HTTPResponseError {
    /// ArcGIS answers operation errors with HTTP 200 and the envelope.
    var status: HTTPResponse.Status { .ok }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let answer = FeatureServerResponder.renderError(error)
        return Response(status: .ok, headers: [.contentType: FeatureServerResponder.contentType], body: ResponseBody(byteBuffer: answer.body))
    }
}
