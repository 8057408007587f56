import FeatureModel
import Hummingbird
import Logging

/// Token security in front of every resource (arcgis-rest.md §6), when `--users` is given.
///
/// - `POST /arcgis/tokens/generateToken` (also `/arcgis/sharing/rest/generateToken`) issues tokens.
/// - `/arcgis/rest/info` is answered here with `authInfo` (`isTokenBasedSecurity`, `tokenServicesUrl`).
/// - Every other resource needs a token: `X-Esri-Authorization: Bearer`, `Authorization: Bearer`, or a `token`
///   parameter in the query string or the form body. None: 499 "Token Required"; unknown or expired: 498
///   "Invalid Token" — HTTP 200 with the envelope unless ``LocalFeatureServerConfiguration/Auth/tokenErrorsUseHTTPStatus``.
///
/// Tokens and passwords are never logged: log lines carry the path only, never the query or the body.
struct TokenAuthMiddleware: RouterMiddleware {
    typealias Context = FeatureServerRequestContext

    let tokens: TokenService
    /// Backs off repeated wrong passwords per user name and per address.
    let throttle: SignInThrottle
    let settings: LocalFeatureServerConfiguration.Auth
    let bodyLimit: Int
    let statistics: FaultController
    let logger: Logger
    /// `http`, or `https` when the listener speaks TLS: clients follow `tokenServicesUrl` as given.
    let scheme: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var request = request
        switch AuthPolicy.access(request.uri.path) {
        case .open:
            return try await next(request, context)
        case .restInfo:
            return restInfo(request)
        case .generateToken:
            return try await generateToken(&request, address: context.channel.remoteAddress?.ipAddress)
        case .protected:
            var token = AuthPolicy.bearerToken(
                esriAuthorization: request.headers[.esriAuthorization], authorization: request.headers[.authorization])
            if token == nil { token = RequestParameters(FormEncoding.decode(request.uri.query ?? ""))["token"] }
            if token == nil && request.method == .post {
                let body = try await RequestBodyLimit.collect(&request, limit: bodyLimit)
                token = RequestParameters(try FormBody.fields(contentType: request.headers[.contentType], body: body))["token"]
            }
            switch tokens.check(token) {
            case .valid:
                return try await next(request, context)
            case .missing:
                return reject(
                    code: 499, message: "Token Required", detail: "This resource needs a token: POST /arcgis/tokens/generateToken.", request)
            case .unknown:
                return reject(code: 498, message: "Invalid Token", detail: "The token is not valid.", request)
            case .expired:
                return reject(code: 498, message: "Invalid Token", detail: "The token has expired.", request)
            }
        }
    }

    private func reject(code: Int, message: String, detail: String, _ request: Request) -> Response {
        statistics.countTokenRejection(code: code)
        logger.debug("token rejected", metadata: ["code": "\(code)", "path": "\(request.uri.path)"])
        let status: HTTPResponse.Status = settings.tokenErrorsUseHTTPStatus ? HTTPResponse.Status(code: code, reasonPhrase: message) : .ok
        return .arcgisError(ArcGISError(code: code, message: message, details: [detail]), status: status)
    }

    private func restInfo(_ request: Request) -> Response {
        let parameters = RequestParameters(FormEncoding.decode(request.uri.query ?? ""))
        let host = request.head.authority ?? "127.0.0.1"
        let info = RestInfo(authInfo: RestInfo.AuthInfo(isTokenBasedSecurity: true, tokenServicesUrl: "\(scheme)://\(host)/arcgis/tokens/"))
        return .arcgis(FeatureServerResponder.render(info, pretty: parameters.wantsPrettyJSON))
    }

    private func generateToken(_ request: inout Request, address: String?) async throws -> Response {
        guard request.method == .post else {
            return .arcgisError(
                ArcGISError(code: 405, message: "Unable to generate token.", details: ["generateToken must be called with POST."]))
        }
        let body = try await RequestBodyLimit.collect(&request, limit: bodyLimit)
        var parameters = RequestParameters(FormEncoding.decode(request.uri.query ?? ""))
        parameters.merge(try FormBody.fields(contentType: request.headers[.contentType], body: body))
        func failure(_ detail: String) -> Response {
            .arcgisError(ArcGISError(code: 400, message: "Unable to generate token.", details: [detail]))
        }
        guard let username = parameters["username"] else { return failure("'username' must be specified.") }
        guard let password = parameters["password"] else { return failure("'password' must be specified.") }
        let client = parameters["client"]?.trimmed.lowercased() ?? "referer"
        guard ["referer", "ip", "requestip"].contains(client) else { return failure("'client' must be referer, ip or requestip.") }
        if client == "referer" && parameters["referer"] == nil && request.headers[.referer] == nil && parameters["client"] != nil {
            return failure("'referer' must be specified.")
        }
        let expiration = try parameters.int("expiration")
        let key = SignInThrottle.key(username: username, address: address)
        let wait = throttle.wait(for: key)
        guard wait == 0 else {
            logger.notice("token refused: too many wrong passwords", metadata: ["path": "\(request.uri.path)", "retryAfterMs": "\(wait)"])
            return .arcgisError(
                ArcGISError(
                    code: 429, message: "Unable to generate token.",
                    details: ["Too many failed sign-ins for this user from this address; try again in \((wait + 999) / 1000) s."]))
        }
        guard let (token, grant) = tokens.generate(username: username, password: password, expirationMinutes: expiration) else {
            throttle.failed(key)
            logger.info("token refused: wrong username or password", metadata: ["path": "\(request.uri.path)"])
            return failure("Invalid username or password.")
        }
        throttle.succeeded(key)
        logger.info("token issued", metadata: ["username": "\(username)", "expires": "\(grant.expires)"])
        let text = #"{"token":"# + FeatureServerResponder.jsonString(token) + #","expires":"# + String(grant.expires) + #","ssl":false}"#
        return .arcgis(ServerResponse(status: 200, body: ByteBuffer(string: text)))
    }
}
