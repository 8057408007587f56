import FeatureModel
import Hummingbird
import Logging
import NIOCore

/// The Hummingbird shell around ``FeatureServerResponder``: one catch-all route for GET and POST, and a
/// middleware that turns anything thrown (unknown paths, other methods, oversized bodies) into the ArcGIS
/// envelope instead of Hummingbird's default empty error responses.
enum FeatureServerApplication {
    /// Largest request body accepted (applyEdits batches of thousands of features fit easily).
    static let maximumBodySize = 64 * 1024 * 1024

    /// The router serving `responder`.
    static func makeRouter(responder: FeatureServerResponder) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: ArcGISErrorMiddleware())
        let handler: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            let body = try await request.body.collect(upTo: maximumBodySize)
            let answer = await responder.respond(
                to: ServerRequest(
                    method: request.method.rawValue,
                    path: request.uri.path,
                    query: request.uri.query,
                    contentType: request.headers[.contentType],
                    body: body
                )
            )
            return Response(
                status: HTTPResponse.Status(code: answer.status),
                headers: [.contentType: FeatureServerResponder.contentType],
                body: ResponseBody(byteBuffer: answer.body)
            )
        }
        router.get("**", use: handler)
        router.post("**", use: handler)
        return router
    }
}

/// Renders every error thrown below it as the ArcGIS envelope (HTTP 200; the envelope `code` carries the status).
struct ArcGISErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as ServiceError {
            return try error.response(from: request, context: context)
        } catch let error as HTTPError {
            let code = Int(error.status.code)
            let message = code == 404 ? "Requested operation is not supported or resource does not exist." : error.status.reasonPhrase
            let detail = error.body ?? "\(request.method.rawValue) \(request.uri.path): \(error.status.reasonPhrase)"
            return try ServiceError(ArcGISError(code: code, message: message, details: [detail])).response(from: request, context: context)
        } catch {
            return try ServiceError.internalError("\(error)").response(from: request, context: context)
        }
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
