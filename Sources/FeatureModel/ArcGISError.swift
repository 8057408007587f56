/// The ArcGIS error body `{"error":{"code","message","details":[…]}}`.
///
/// ArcGIS usually answers HTTP 200 with this body; `code` carries 400, 403, 404, 498, 499 or 500.
public struct ArcGISError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The error code: an HTTP-like status such as 400, 403, 404, 498 (invalid token), 499 (token required) or 500.
    public var code: Int
    /// The service's message, for people.
    public var message: String
    /// Always present on the wire: esridump joins it and fails without it.
    public var details: [String]
    /// A finer-grained numeric code some services add.
    public var extendedCode: Int64?
    /// A stable message identifier some services add (such as `GWM_0003`).
    public var messageCode: String?

    package init(code: Int, message: String, details: [String] = [], extendedCode: Int64? = nil, messageCode: String? = nil) {
        self.code = code
        self.message = message
        self.details = details
        self.extendedCode = extendedCode
        self.messageCode = messageCode
    }

    private enum CodingKeys: String, CodingKey { case code, message, details, extendedCode, messageCode, description }

    /// Decodes the error from its JSON object; a missing `details` reads as empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        code = try c.decodeIfPresent(Int.self, forKey: .code) ?? 500
        message =
            try c.decodeIfPresent(String.self, forKey: .message) ?? c.decodeIfPresent(String.self, forKey: .description)
            ?? ""
        details = (try? c.decodeIfPresent([String].self, forKey: .details)) ?? []
        extendedCode = try? c.decodeIfPresent(Int64.self, forKey: .extendedCode)
        messageCode = try? c.decodeIfPresent(String.self, forKey: .messageCode)
    }

    /// Encodes the error as its JSON object, `details` always included.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(code, forKey: .code)
        try c.encodeIfPresent(extendedCode, forKey: .extendedCode)
        try c.encodeIfPresent(messageCode, forKey: .messageCode)
        try c.encode(message, forKey: .message)
        try c.encode(details, forKey: .details)
    }

    /// The code, message and details on one line.
    public var description: String {
        details.isEmpty ? "\(message) (code \(code))" : "\(message) (code \(code)): \(details.joined(separator: "; "))"
    }
}

/// The wrapper object `{"error": …}` around an ``ArcGISError``.
package struct ErrorEnvelope: Sendable, Hashable, Codable {
    package var error: ArcGISError
    package init(error: ArcGISError) { self.error = error }
}
