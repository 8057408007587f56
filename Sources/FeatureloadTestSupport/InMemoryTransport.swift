package import FeatureModel
package import FeatureServiceClient
import Synchronization

/// An ``HTTPTransport`` that answers from a closure and records every request: for component tests of the
/// client without sockets.
///
/// ```swift
/// let transport = InMemoryTransport { request in
///     request.url.hasSuffix("/query") ? .json(#"{"count":3}"#) : .json(#"{"error":{"code":404,"message":"x","details":[]}}"#)
/// }
/// let count = try await FeatureLayerClient(url: "http://test/FeatureServer/0", transport: transport).count()
/// #expect(transport.requests.count == 1)
/// ```
package final class InMemoryTransport: HTTPTransport {
    /// Answers one request; may throw ``TransportError`` to simulate network failures.
    package typealias Handler = @Sendable (HTTPRequest) async throws -> HTTPResponse

    private let handler: Handler
    private let recorded = Mutex<[HTTPRequest]>([])

    /// A transport answering with `handler`.
    package init(_ handler: @escaping Handler) {
        self.handler = handler
    }

    /// Records `request`, then returns (or throws) what the handler does.
    package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        recorded.withLock { $0.append(request) }
        return try await handler(request)
    }

    /// Every request sent so far, in order.
    package var requests: [HTTPRequest] {
        recorded.withLock { $0 }
    }

    /// Forgets the recorded requests.
    package func clearRequests() {
        recorded.withLock { $0.removeAll() }
    }
}

extension HTTPResponse {
    /// A response whose body is `text` (JSON by default).
    package static func json(_ text: String, status: Int = 200, contentType: String = "application/json") -> HTTPResponse {
        HTTPResponse(status: status, headers: [HTTPHeader("Content-Type", contentType)], body: Array(text.utf8))
    }

    /// A response whose body is `value` encoded as wire JSON.
    /// - Throws: `EncodingError` when `value` cannot be encoded.
    package static func json(encoding value: some Encodable, status: Int = 200) throws -> HTTPResponse {
        .json(try WireJSON.string(value), status: status)
    }
}

extension HTTPRequest {
    /// The form fields of an `application/x-www-form-urlencoded` body, plus the query string's, in order.
    package var formFields: [FormField] {
        var fields: [FormField] = []
        if let question = url.firstIndex(of: "?") {
            fields += FormEncoding.decode(url[url.index(after: question)...])
        }
        if let bytes = body.bytes, !bytes.isEmpty {
            fields += FormEncoding.decode(utf8: bytes)
        }
        return fields
    }

    /// The value of the first form or query field called `name`.
    package func formValue(_ name: String) -> String? {
        formFields.first { $0.name == name }?.value
    }

    /// The URL's path after the host, without the query string.
    package var path: String {
        var text = Substring(url)
        if let question = text.firstIndex(of: "?") { text = text[..<question] }
        if let scheme = text.firstRange(of: "://") { text = text[scheme.upperBound...] }
        if let slash = text.firstIndex(of: "/") { return String(text[slash...]) }
        return "/"
    }
}
