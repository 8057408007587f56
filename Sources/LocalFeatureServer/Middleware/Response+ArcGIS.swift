import FeatureModel
import Hummingbird

extension Response {
    /// A JSON answer of the feature service with `status` (default 200) and extra `headers`.
    static func arcgis(_ answer: ServerResponse, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:]) -> Response {
        var headers: HTTPFields = [.contentType: FeatureServerResponder.contentType]
        headers.append(contentsOf: extra)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: answer.body))
    }

    /// The ArcGIS error envelope for `error` with `status` (default 200) and extra `headers`.
    static func arcgisError(_ error: ArcGISError, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        arcgis(FeatureServerResponder.renderError(error), status: status, headers: headers)
    }
}

/// `HTTPField` itself is not re-exported by Hummingbird; reach its `Name` through `HTTPFields`' element type.
typealias HTTPFieldName = HTTPFields.Element.Name

extension HTTPFieldName {
    /// `X-Featureload-Fault`: the faults injected into this answer, e.g. `latency, http503`.
    static let featureloadFault = HTTPFieldName("X-Featureload-Fault")!
    /// `X-Esri-Authorization`: `Bearer <token>`, as the arcgis Python client sends it.
    static let esriAuthorization = HTTPFieldName("X-Esri-Authorization")!
    /// `Server-Timing`: how long the service took, e.g. `app;dur=12.345` (milliseconds).
    static let serverTiming = HTTPFieldName("Server-Timing")!
}
