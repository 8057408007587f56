public import FeatureModel

/// Why a feature-service operation failed: the one error type of this module.
///
/// The cases: the transport got no response (``transportError``); the HTTP status was not 2xx (``httpStatus``);
/// the service answered with an ArcGIS error body, usually under HTTP 200 (``arcgisError``); or the body was not
/// the JSON the operation expects (``isUndecodableResponse``). `description` names the operation, the URL without
/// its query string, and what to do; it never contains request or response bodies or tokens.
///
/// Per-edit failures of applyEdits are not errors: they come back in ``ApplyEditsResult/failures``. The
/// all-or-nothing rollback of `rollbackOnFailure=true` arrives as an ArcGIS error body and is thrown as such.
public struct FeatureServiceError: Error, Sendable, CustomStringConvertible {
    private enum Reason: Sendable {
        case transport(TransportError)
        case httpStatus(Int, contentType: String?)
        case arcgis(ArcGISError, httpStatus: Int)
        case undecodable(expected: String, byteCount: Int, contentType: String?, problem: String)
        case invalidRequest(String)
    }

    /// The operation that failed, such as `query`, `applyEdits` or `service metadata`.
    public let operation: String
    /// The URL of the failed request, without query string or user info.
    public let url: String
    private let reason: Reason

    private init(operation: String, url: String, reason: Reason) {
        self.operation = operation
        self.url = HTTPRequest.redact(url)
        self.reason = reason
    }

    static func transport(_ error: TransportError, operation: String, url: String) -> FeatureServiceError {
        FeatureServiceError(operation: operation, url: url, reason: .transport(error))
    }

    static func httpStatus(_ status: Int, contentType: String?, operation: String, url: String) -> FeatureServiceError {
        FeatureServiceError(operation: operation, url: url, reason: .httpStatus(status, contentType: contentType))
    }

    static func arcgis(_ error: ArcGISError, httpStatus: Int, operation: String, url: String) -> FeatureServiceError {
        FeatureServiceError(operation: operation, url: url, reason: .arcgis(error, httpStatus: httpStatus))
    }

    static func undecodable(
        expected: String, byteCount: Int, contentType: String?, problem: String, operation: String, url: String
    ) -> FeatureServiceError {
        FeatureServiceError(
            operation: operation, url: url,
            reason: .undecodable(expected: expected, byteCount: byteCount, contentType: contentType, problem: problem))
    }

    static func invalidRequest(_ problem: String, operation: String, url: String) -> FeatureServiceError {
        FeatureServiceError(operation: operation, url: url, reason: .invalidRequest(problem))
    }

    /// The ArcGIS error the service answered with (an `{"error":…}` body, whatever the HTTP status), if that is
    /// why the operation failed. Its `code` carries 400, 403, 498 (invalid token), 499 (token required) and so on.
    public var arcgisError: ArcGISError? {
        if case .arcgis(let error, _) = reason { return error }
        return nil
    }

    /// The HTTP status, when the failure is a non-2xx status without an ArcGIS error body.
    public var httpStatus: Int? {
        if case .httpStatus(let status, _) = reason { return status }
        return nil
    }

    /// The transport failure, when no response arrived.
    public var transportError: TransportError? {
        if case .transport(let error) = reason { return error }
        return nil
    }

    /// Whether the response arrived but its body was not the expected JSON.
    public var isUndecodableResponse: Bool {
        if case .undecodable = reason { return true }
        return false
    }

    public var description: String {
        let subject = "\(operation) at \(url)"
        switch reason {
        case .transport(let error):
            return "\(subject) got no response: \(error)"
        case .httpStatus(let status, let contentType):
            let advice =
                switch status {
                case 401, 403: "The service refused access; check the credentials or token."
                case 404: "Check that the URL points at a FeatureServer (or one of its layers) that exists."
                case 413, 414: "The request is too large for the server; send fewer edits or ids per request."
                case 429, 503: "The server is overloaded or throttling; lower the request rate."
                case 500...599: "The server failed; check its logs."
                default: "Check the URL and the server's logs."
                }
            return "\(subject) failed with HTTP \(status)\(contentType.map { " (\($0))" } ?? ""). \(advice)"
        case .arcgis(let error, let httpStatus):
            let status = httpStatus == 200 ? "" : " (HTTP \(httpStatus))"
            return "\(subject) returned ArcGIS error \(error.code)\(status): \(Self.summary(of: error)). \(Self.advice(for: error))"
        case .undecodable(let expected, let byteCount, let contentType, let problem):
            return
                "\(subject) answered with \(byteCount) bytes\(contentType.map { " of \($0)" } ?? "") that are not \(expected) JSON "
                + "(\(problem)). Check that the URL points at an ArcGIS feature service and that it honours f=json."
        case .invalidRequest(let problem):
            return "\(subject) could not be sent: \(problem)."
        }
    }

    private static func summary(of error: ArcGISError) -> String {
        var text = error.message.isEmpty ? "no message" : error.message
        if !error.details.isEmpty { text += " [" + error.details.joined(separator: "; ") + "]" }
        if let extended = error.extendedCode { text += " (extended code \(extended))" }
        return text
    }

    private static func advice(for error: ArcGISError) -> String {
        switch error.code {
        case 498: "The token is invalid or expired; get a new one."
        case 499: "The service needs a token; supply one."
        case 403: "The token or user lacks permission for this operation."
        case 404: "Check the layer id and the service URL."
        case 400:
            "Check the request's parameters (where clause, field names, edit values); with rollbackOnFailure=true one bad edit rolls back the whole batch."
        default: "Check the service's logs."
        }
    }
}
