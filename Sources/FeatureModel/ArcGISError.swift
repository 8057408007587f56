/// The ArcGIS error body `{"error":{"code","message","details":[…]}}`.
///
/// ArcGIS usually answers HTTP 200 with this body; `code` carries 400, 403, 404, 498, 499 or 500.
public struct ArcGISError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    public var code: Int
    public var message: String
    /// Always present on the wire: esridump joins it and fails without it.
    public var details: [String]
    public var extendedCode: Int64?
    public var messageCode: String?

    public init(code: Int, message: String, details: [String] = [], extendedCode: Int64? = nil, messageCode: String? = nil) {
        self.code = code
        self.message = message
        self.details = details
        self.extendedCode = extendedCode
        self.messageCode = messageCode
    }

    private enum CodingKeys: String, CodingKey { case code, message, details, extendedCode, messageCode, description }

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

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(code, forKey: .code)
        try c.encodeIfPresent(extendedCode, forKey: .extendedCode)
        try c.encodeIfPresent(messageCode, forKey: .messageCode)
        try c.encode(message, forKey: .message)
        try c.encode(details, forKey: .details)
    }

    public var description: String {
        details.isEmpty ? "\(message) (code \(code))" : "\(message) (code \(code)): \(details.joined(separator: "; "))"
    }
}

/// The wrapper object `{"error": …}` around an ``ArcGISError``.
public struct ErrorEnvelope: Sendable, Hashable, Codable {
    public var error: ArcGISError
    public init(error: ArcGISError) { self.error = error }
}
