import Foundation

/// Words for why JSON could not be decoded (a saved report, a service's answer): the field, as a path like
/// `metrics[2].count`, and what it should hold, with no Swift type names. Every module says it this one way.
package enum DecodingProblem {
    package static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context.codingPath + [key])) is missing"
        case .typeMismatch(let type, let context): return "\(path(context.codingPath)) is not \(words(for: type))"
        case .valueNotFound(let type, let context): return "\(path(context.codingPath)) is null where \(words(for: type)) belongs"
        case .dataCorrupted(let context):
            // Foundation also lands here, without a path, for a number too large for 64 bits.
            if context.codingPath.isEmpty { return "not valid JSON, or it holds a number too large to read" }
            // Numbers too large for their field land here too ("Number … is not representable").
            return "\(path(context.codingPath)) is invalid: \(context.debugDescription)"
        @unknown default: return "not the JSON expected"
        }
    }

    /// `metrics[2].histogram.buckets`, or `the top level`.
    static func path(_ keys: [any CodingKey]) -> String {
        let text = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return text.isEmpty ? "the top level" : text.hasPrefix(".") ? String(text.dropFirst()) : text
    }

    /// What a value of `type` is, in words.
    static func words(for type: Any.Type) -> String {
        switch type {
        case is any BinaryInteger.Type: return "a whole number in range"
        case is any BinaryFloatingPoint.Type: return "a number"
        case is String.Type: return "text"
        case is Bool.Type: return "true or false"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") { return "a list" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "an object of the expected shape"
        }
    }
}
