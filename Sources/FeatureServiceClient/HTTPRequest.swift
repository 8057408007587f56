package import FeatureModel

/// The HTTP methods the feature-service client uses: GET for metadata, POST for queries and edits.
package enum HTTPMethod: String, Sendable {
    case get = "GET"
    case post = "POST"
}

/// One HTTP header field.
///
/// Names compare case-insensitively when looked up (``HTTPResponse/header(_:)``), but are stored as given.
package struct HTTPHeader: Sendable, Hashable {
    /// The field name, such as `Content-Type`.
    package var name: String
    /// The field value, without surrounding white space; must not contain line breaks.
    package var value: String

    /// A header `name: value`.
    package init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// One HTTP request, as a plain `Sendable` value that any ``HTTPTransport`` can carry out.
///
/// ```swift
/// let request = HTTPRequest.form(url: layerURL + "/query", fields: query.formFields)
/// let response = try await transport.send(request)
/// ```
package struct HTTPRequest: Sendable {
    /// GET or POST.
    package var method: HTTPMethod
    /// The absolute URL, query string included.
    package var url: String
    /// Extra request headers; the transport adds `User-Agent`, `Accept-Encoding` and an empty `Expect:` itself.
    package var headers: [HTTPHeader]
    /// The request body; sent only with ``HTTPMethod/post``.
    package var body: Body
    /// The total time the request may take, connection included; `nil` uses the transport's default.
    package var timeout: Duration?
    /// Where to stream the response body instead of holding it (an attachment download): the file is created or
    /// truncated, and the response's ``HTTPResponse/body`` stays empty with ``HTTPResponse/fileBytes`` set. A JSON
    /// answer (an ArcGIS error envelope) is still held in memory, so the caller can read it. Default nil.
    var responseFile: String? = nil

    /// A request.
    /// - Parameters:
    ///   - method: GET (default) or POST.
    ///   - url: The absolute URL, query string included.
    ///   - headers: Extra headers; the transport adds `User-Agent` and `Accept-Encoding` itself.
    ///   - body: The body of a POST.
    ///   - timeout: The total per-request timeout; `nil` uses the transport's default.
    package init(method: HTTPMethod = .get, url: String, headers: [HTTPHeader] = [], body: [UInt8] = [], timeout: Duration? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = .bytes(body)
        self.timeout = timeout
    }

    /// A request whose body may be streamed (a ``MultipartBody`` with file parts).
    /// - Parameters:
    ///   - method: POST (default) or GET (a GET sends no body).
    ///   - url: The absolute URL, query string included.
    ///   - headers: Extra headers; a multipart body needs its `Content-Type` (``multipart(url:body:timeout:)`` adds it).
    ///   - body: The body.
    ///   - timeout: The total per-request timeout; `nil` uses the transport's default.
    package init(method: HTTPMethod = .post, url: String, headers: [HTTPHeader] = [], body: Body, timeout: Duration? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// A POST with an `application/x-www-form-urlencoded` body made of `fields`.
    /// - Parameters:
    ///   - url: The absolute URL.
    ///   - fields: The form fields, in order.
    ///   - timeout: The total per-request timeout; `nil` uses the transport's default.
    /// - Returns: The request.
    package static func form(url: String, fields: [FormField], timeout: Duration? = nil) -> HTTPRequest {
        HTTPRequest(
            method: .post, url: url, headers: [formContentType], body: FormEncoding.encodedBytes(fields),
            timeout: timeout)
    }

    /// A POST with an `application/x-www-form-urlencoded` body given already encoded.
    /// - Parameters:
    ///   - url: The absolute URL.
    ///   - encodedBody: The encoded fields, `a=1&b=x%20y`.
    ///   - timeout: The total per-request timeout; `nil` uses the transport's default.
    /// - Returns: The request.
    package static func form(url: String, encodedBody: [UInt8], timeout: Duration? = nil) -> HTTPRequest {
        HTTPRequest(method: .post, url: url, headers: [formContentType], body: encodedBody, timeout: timeout)
    }

    /// A POST with a `multipart/form-data` body whose file parts are read from disk while the request is sent.
    /// - Parameters:
    ///   - url: The absolute URL.
    ///   - body: The parts and boundary.
    ///   - timeout: The total per-request timeout; `nil` uses the transport's default.
    /// - Returns: The request, with the body's `Content-Type` header.
    package static func multipart(url: String, body: MultipartBody, timeout: Duration? = nil) -> HTTPRequest {
        HTTPRequest(method: .post, url: url, headers: [HTTPHeader("Content-Type", body.contentType)], body: .multipart(body), timeout: timeout)
    }

    static let formContentType = HTTPHeader("Content-Type", "application/x-www-form-urlencoded")

    /// The URL without its query string or user info, safe to show in errors and logs (tokens travel in queries).
    package var redactedURL: String { HTTPRequest.redact(url) }

    /// `url` without its query string, fragment and user info.
    static func redact(_ url: String) -> String {
        var text = Substring(url)
        if let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<cut] }
        // Drop `user:password@` from the authority.
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else { return String(text) }
        let authorityStart = text.index(colon, offsetBy: 3)
        let authorityEnd = text[authorityStart...].firstIndex(of: "/") ?? text.endIndex
        guard let at = text[authorityStart..<authorityEnd].lastIndex(of: "@") else { return String(text) }
        return String(text[..<authorityStart]) + String(text[text.index(after: at)...])
    }
}

extension HTTPRequest {
    /// What a POST sends: bytes held in memory, or a multipart body whose file parts stay on disk until sent.
    ///
    /// The length is known before the first byte goes out (``contentLength``), so transports send a
    /// `Content-Length`, never chunked encoding. A multipart body is read in order, once: a transport must not
    /// rewind it to resend the request on its own (see ``CurlTransport``).
    package enum Body: Sendable, Hashable {
        /// The body bytes.
        case bytes([UInt8])
        /// A `multipart/form-data` body; its file parts are read from disk in chunks while it is sent.
        case multipart(MultipartBody)

        /// The body's exact length in bytes, computed without reading any file.
        package var contentLength: Int64 {
            switch self {
            case .bytes(let bytes): Int64(bytes.count)
            case .multipart(let body): body.contentLength
            }
        }

        /// The bytes of an in-memory body; nil for a multipart body (which may be far larger than memory allows).
        package var bytes: [UInt8]? {
            if case .bytes(let bytes) = self { return bytes }
            return nil
        }

        /// Whether the body has no bytes.
        package var isEmpty: Bool { contentLength == 0 }
    }
}
