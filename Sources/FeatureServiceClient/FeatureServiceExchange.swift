import FeatureModel

/// The request–response rules every operation shares: send, check for an ArcGIS error body, check the status,
/// decode. Stateless; used by ``FeatureLayerClient`` and ``FeatureService``.
struct FeatureServiceExchange: Sendable {
    let transport: any HTTPTransport

    /// Sends `request` and decodes the answer as `T`.
    /// - Throws: ``FeatureServiceError`` for every failure; `CancellationError` when the task was cancelled.
    func perform<T: Decodable>(_ request: HTTPRequest, operation: String, as type: T.Type) async throws -> T {
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch let error as TransportError {
            throw FeatureServiceError.transport(error, operation: operation, url: request.url)
        }
        // ArcGIS puts errors in the body, usually under HTTP 200; the body explains more than the status does.
        if let error = WireJSON.error(in: response.body) {
            throw FeatureServiceError.arcgis(error, httpStatus: response.status, operation: operation, url: request.url)
        }
        guard (200..<300).contains(response.status) else {
            throw FeatureServiceError.httpStatus(
                response.status, contentType: response.header("Content-Type"), operation: operation, url: request.url)
        }
        do {
            if let fast = T.self as? any JSONValueDecodable.Type {
                // Hot answers skip JSONDecoder: a byte-level parse and a direct walk.
                return try fast.init(json: JSONReader.parse(bytes: response.body)) as! T
            }
            return try WireJSON.decode(T.self, from: response.body)
        } catch {
            throw FeatureServiceError.undecodable(
                expected: String(describing: T.self), byteCount: response.body.count,
                contentType: response.header("Content-Type"), problem: Self.explain(error), operation: operation,
                url: request.url)
        }
    }

    /// A short account of a decoding failure: what was wrong and where, no values from the body.
    static func explain(_ error: any Error) -> String {
        if let error = error as? WireDecodingError { return error.description }
        if let error = error as? JSONReader.SyntaxError { return "not valid JSON (\(error.description))" }
        guard let error = error as? DecodingError else { return "not JSON" }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return keys.isEmpty ? "at the top level" : "at \(keys.hasPrefix(".") ? String(keys.dropFirst()) : keys)"
        }
        switch error {
        case .keyNotFound(let key, let context): return "key '\(key.stringValue)' missing \(path(context))"
        case .typeMismatch(let type, let context): return "expected \(type) \(path(context))"
        case .valueNotFound(let type, let context): return "null where \(type) was expected \(path(context))"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "invalid value \(path(context))"
        @unknown default: return "not the expected JSON"
        }
    }

    /// `url` with `?f=json` (or `&f=json`) appended.
    static func jsonURL(_ url: String) -> String {
        url + (url.contains("?") ? "&f=json" : "?f=json")
    }

    /// `base` with a path component appended before any query string: `…/0?token=t` + `query` → `…/0/query?token=t`.
    static func appending(_ component: String, to base: String) -> String {
        guard let question = base.firstIndex(of: "?") else { return trimmed(base) + "/" + component }
        return trimmed(String(base[..<question])) + "/" + component + String(base[question...])
    }

    private static func trimmed(_ url: String) -> String {
        url.hasSuffix("/") ? String(url.dropLast()) : url
    }
}
