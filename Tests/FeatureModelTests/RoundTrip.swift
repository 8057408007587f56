import FeatureModel
import Testing

/// Decodes `json` as `T`, encodes it again, decodes that, and checks both decodings agree.
func roundTrip<T: Codable & Equatable>(_ type: T.Type, _ json: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> T {
    let decoded = try WireJSON.decode(T.self, from: json)
    let again = try WireJSON.decode(T.self, from: try WireJSON.encode(decoded))
    #expect(again == decoded, "re-encoded \(T.self) differs", sourceLocation: sourceLocation)
    return decoded
}
