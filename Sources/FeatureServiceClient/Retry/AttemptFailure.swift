/// Why one attempt failed, reduced to what retry decisions need: no bodies, no URLs, no tokens.
public enum AttemptFailure: Sendable, Hashable, CustomStringConvertible {
    /// No response arrived; `mayHaveBeenSent` tells whether the request may have reached the service.
    case transport(TransportError.Kind, mayHaveBeenSent: Bool)
    /// A non-2xx HTTP status without an ArcGIS error body.
    case httpStatus(Int)
    /// An ArcGIS error body (`{"error":{"code":…}}`), under HTTP `httpStatus` (usually 200).
    case arcgis(code: Int, httpStatus: Int)
    /// A 2xx answer whose body was not the expected JSON.
    case undecodable(httpStatus: Int)
    /// The request could not be built (an attribute that does not encode); nothing was sent.
    case invalidRequest

    /// The failure of `error`, or `nil` when `error` is not a ``FeatureServiceError``.
    init?(_ error: any Error) {
        guard let error = error as? FeatureServiceError else { return nil }
        self = error.attemptFailure
    }

    /// Whether the edit this attempt carried may have been applied although no success was reported.
    ///
    /// True when request bytes may have reached the service and no answer came back (a timeout after send, a
    /// connection dropped mid-request), and for HTTP 500, 502 and 504, which a gateway or a failing server may send
    /// after the work was done. False for 429 and 503 (the service refused before working) and for ArcGIS error
    /// bodies under HTTP 200 (the service answered; with `rollbackOnFailure` nothing was kept).
    public var mayHaveBeenApplied: Bool {
        switch self {
        case .transport(_, let mayHaveBeenSent): mayHaveBeenSent
        case .httpStatus(let status): status == 500 || status == 502 || status == 504
        case .arcgis, .undecodable, .invalidRequest: false
        }
    }

    /// The failure in a few words, such as `HTTP 503` or `ArcGIS error 498`.
    public var description: String {
        switch self {
        case .transport(let kind, let sent): "\(kind)\(sent ? " (the request may have reached the service)" : "")"
        case .httpStatus(let status): "HTTP \(status)"
        case .arcgis(let code, let status): "ArcGIS error \(code)\(status == 200 ? "" : " under HTTP \(status)")"
        case .undecodable(let status): "an undecodable answer (HTTP \(status))"
        case .invalidRequest: "a request that could not be built"
        }
    }
}
