import FeatureModel
import Hummingbird
import Logging

/// The admin resources that scenario files drive (with token security on they need a token like any resource):
///
/// | request | answer |
/// |---|---|
/// | `GET /arcgis/admin/faults` | the settings in force, as ``LocalFeatureServerConfiguration/Faults/parse(json:base:)`` reads them |
/// | `POST /arcgis/admin/faults` | replaces the settings (JSON body, or a form field `faults` holding the JSON) and restarts the random stream; answers `{"success":true,"faults":{…}}`; a bad document gets code 400 listing every problem |
/// | `GET /arcgis/admin/stats` | `{"requests","requestsByOperation","faults":{kind:count},"delayedRequests","tokenRequired","invalidToken"}` |
/// | `POST /arcgis/admin/stats/reset` | zeroes the counters |
struct FaultAdminMiddleware: RouterMiddleware {
    typealias Context = FeatureServerRequestContext

    let controller: FaultController
    let bodyLimit: Int
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard FaultMiddleware.mayContain(request.uri.path, "admin") else { return try await next(request, context) }
        let segments = request.uri.path.split(separator: "/").map { $0.lowercased() }
        guard segments.count >= 2, segments[0] == "arcgis", segments[1] == "admin" else { return try await next(request, context) }
        var request = request
        let pretty = RequestParameters(FormEncoding.decode(request.uri.query ?? "")).wantsPrettyJSON
        switch (request.method, Array(segments.dropFirst(2))) {
        case (.get, ["faults"]):
            return .arcgis(FeatureServerResponder.render(controller.faults.json, pretty: pretty))
        case (.post, ["faults"]):
            let body = try await RequestBodyLimit.collect(&request, limit: bodyLimit)
            let contentType = request.headers[.contentType]?.lowercased() ?? ""
            let text: String
            if contentType.hasPrefix("application/x-www-form-urlencoded") || contentType.hasPrefix("multipart/form-data") {
                guard let field = RequestParameters(try FormBody.fields(contentType: contentType, body: body))["faults"] else {
                    throw ServiceError.invalidParameter("faults", reason: "the form has no 'faults' field holding the JSON settings")
                }
                text = field
            } else {
                text = String(buffer: body)
            }
            switch LocalFeatureServerConfiguration.Faults.parse(json: text, base: controller.faults) {
            case .success(let faults):
                controller.replace(faults)
                logger.notice("fault settings replaced", metadata: ["faults": "\(faults.json)"])
                return .arcgis(FeatureServerResponder.render(JSONValue.object(["success": true, "faults": faults.json]), pretty: pretty))
            case .failure(let failure):
                throw ServiceError(ArcGISError(code: 400, message: "Unable to complete operation.", details: failure.problems))
            }
        case (.get, ["stats"]):
            return .arcgis(FeatureServerResponder.render(Self.json(controller.statistics), pretty: pretty))
        case (.post, ["stats", "reset"]):
            controller.resetStatistics()
            return .arcgis(FeatureServerResponder.render(JSONValue.object(["success": true]), pretty: pretty))
        default:
            throw ServiceError.notFound("No admin resource \(request.method.rawValue) \(request.uri.path).")
        }
    }

    /// The statistics document.
    static func json(_ statistics: FaultStatistics) -> JSONValue {
        var faults: [String: JSONValue] = [:]
        for (kind, count) in statistics.faults { faults[kind.rawValue] = .int(Int64(count)) }
        return .object([
            "requests": .int(Int64(statistics.requests)),
            "requestsByOperation": .object(statistics.requestsByOperation.mapValues { .int(Int64($0)) }),
            "faults": .object(faults),
            "delayedRequests": .int(Int64(statistics.delayedRequests)),
            "tokenRequired": .int(Int64(statistics.tokenRequired)),
            "invalidToken": .int(Int64(statistics.invalidToken)),
        ])
    }
}
