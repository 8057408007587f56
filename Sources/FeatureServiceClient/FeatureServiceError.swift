public import FeatureModel

/// Why a feature-service operation failed: the one error type of this module.
///
/// The cases: the transport got no response (``transportError``); the HTTP status was not 2xx (``httpStatus``);
/// the service answered with an ArcGIS error body, usually under HTTP 200 (``arcgisError``); or the body was not
/// the JSON the operation expects (``isUndecodableResponse``). `description` names the operation, the URL without
/// its query string, and what to do; it never contains request or response bodies or tokens.
///
/// Per-edit failures of applyEdits are not errors: they come back in ``ApplyEditsResult/failures`` (each with its
/// ArcGIS code and description, ``EditError``). The all-or-nothing rollback of `rollbackOnFailure=true` arrives as
/// an ArcGIS error body and is thrown as such. Token failures (generateToken refused, 498 after a refresh) are
/// ``isAuthenticationFailure``.
///
/// Every attempt made before the error was thrown is in ``attempts``; when a retry policy gave up, ``stopReason``
/// says why and the description says how many attempts were made.
public struct FeatureServiceError: Error, Sendable, CustomStringConvertible {
    private enum Reason: Sendable {
        case transport(TransportError)
        case httpStatus(Int, contentType: String?)
        case arcgis(ArcGISError, httpStatus: Int)
        case undecodable(expected: String, byteCount: Int, contentType: String?, problem: String)
        case invalidRequest(String)
        case authentication(String)
    }

    /// The operation that failed, such as `query`, `applyEdits` or `service metadata`.
    public let operation: String
    /// The URL of the failed request, without query string or user info.
    public let url: String
    private let reason: Reason
    /// Every exchange made for the operation, the failed ones included (empty when the error arose before any).
    public internal(set) var attempts: [Attempt] = []
    /// Why a retry policy stopped retrying, when one was in use.
    public internal(set) var stopReason: RetryPolicy.StopReason?
    /// The failed response's status, `Retry-After` and `Date` headers and timing, for the retry loop.
    var response: ResponseContext?

    /// What the retry loop needs from a failed response.
    struct ResponseContext: Sendable {
        var status: Int
        var retryAfter: String?
        var date: String?
        var timing: TransferTiming?
    }

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

    /// A token could not be obtained or was refused after a refresh; `problem` must hold no token or password.
    static func authentication(_ problem: String, operation: String, url: String) -> FeatureServiceError {
        FeatureServiceError(operation: operation, url: url, reason: .authentication(problem))
    }

    /// Whether one of ``attempts`` may have applied the operation's edits although none reported success: a
    /// request that may have reached the service and got no answer, or HTTP 500/502/504. Check the service (by
    /// GlobalID) before sending the edits again.
    public var mayHaveBeenApplied: Bool {
        attempts.contains { $0.purpose == .request && $0.failure?.mayHaveBeenApplied == true }
    }

    /// Whether the service refused the token: ArcGIS code 498 in the body, or HTTP 498.
    var isInvalidToken: Bool {
        switch reason {
        case .arcgis(let error, let status): error.code == 498 || status == 498
        case .httpStatus(let status, _): status == 498
        default: false
        }
    }

    /// Whether the failure is about credentials: generateToken refused them, or the service kept refusing the token.
    public var isAuthenticationFailure: Bool {
        if case .authentication = reason { return true }
        return false
    }

    /// The failure reduced to what retry decisions need.
    public var attemptFailure: AttemptFailure {
        switch reason {
        case .transport(let error): .transport(error.kind, mayHaveBeenSent: error.mayHaveBeenSent)
        case .httpStatus(let status, _): .httpStatus(status)
        case .arcgis(let error, let status): .arcgis(code: error.code, httpStatus: status)
        case .undecodable: .undecodable(httpStatus: response?.status ?? 200)
        case .invalidRequest, .authentication: .invalidRequest
        }
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

    /// The operation, the redacted URL, what went wrong and what to check, and after retries why they stopped;
    /// never a token or a request body.
    public var description: String {
        guard let stopReason, attempts.count > 1 || stopReason != .notRetryable else { return failureDescription }
        return failureDescription + " The client \(stopReason) (\(attempts.summary))."
    }

    private var failureDescription: String {
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
            return
                "\(subject) returned ArcGIS error \(error.code)\(status): \(Self.summary(of: error)). \(Self.advice(for: error, operation: operation))"
        case .undecodable(let expected, let byteCount, let contentType, let problem):
            return
                "\(subject) answered with \(byteCount) bytes\(contentType.map { " of \($0)" } ?? "") that are not \(expected) JSON "
                + "(\(problem)). Check that the URL points at an ArcGIS feature service and that it honours f=json."
        case .invalidRequest(let problem):
            return "\(subject) could not be sent: \(problem)."
        case .authentication(let problem):
            return "\(subject) could not authenticate: \(problem). Check the user name and password (or the token) and the token URL."
        }
    }

    private static func summary(of error: ArcGISError) -> String {
        var text = error.message.isEmpty ? "no message" : error.message
        if !error.details.isEmpty { text += " [" + error.details.joined(separator: "; ") + "]" }
        if let extended = error.extendedCode { text += " (extended code \(extended))" }
        return text
    }

    private static func advice(for error: ArcGISError, operation: String) -> String {
        switch error.code {
        case 498: "The token is invalid or expired; get a new one."
        case 499: "The service needs a token; supply one."
        case 403: "The token or user lacks permission for this operation."
        case 404: "Check the layer id and the service URL."
        case 429, 502, 503, 504:
            "The service is throttling or unavailable; lower the request rate, or let the requests be retried (`retry:` in a "
                + "scenario file; featureload apply retries by itself)."
        case 400 where operation.contains("query"):
            "Check the query's parameters (where clause, field names, geometry and spatialRel, outSR)."
        case 400 where operation.contains("metadata"):
            "Check the layer id and the service URL."
        case 400:
            "Check the request's parameters (field names, edit values, GlobalIDs); with rollbackOnFailure=true one bad edit rolls back the whole batch."
        default: "Check the service's logs."
        }
    }
}
