/// Where the time of one transfer went, and how many bytes crossed the wire, as libcurl measured them.
///
/// Every duration counts from the start of the transfer, so they grow in this order: `nameLookup` ≤ `connect` ≤
/// `appConnect` ≤ `startTransfer` ≤ `total`. On a reused keep-alive connection the first three are (near) zero.
package struct TransferTiming: Sendable, Hashable {
    /// Until the host name was resolved.
    var nameLookup: Duration
    /// Until the TCP connection was established.
    package var connect: Duration
    /// Until the TLS handshake was done (zero for plain HTTP).
    package var appConnect: Duration
    /// Until the first response byte arrived (time to first byte).
    package var startTransfer: Duration
    /// The whole transfer.
    package var total: Duration
    /// Bytes sent: request line, headers and body.
    package var bytesSent: Int64
    /// Bytes received as they were on the wire: headers plus the (possibly compressed) body.
    package var bytesReceived: Int64
    /// New connections this transfer opened: 0 when it reused a keep-alive connection.
    package var newConnections: Int

    /// A timing record; transports fill it, fakes may too.
    package init(
        nameLookup: Duration = .zero, connect: Duration = .zero, appConnect: Duration = .zero,
        startTransfer: Duration = .zero, total: Duration = .zero, bytesSent: Int64 = 0, bytesReceived: Int64 = 0,
        newConnections: Int = 0
    ) {
        self.nameLookup = nameLookup
        self.connect = connect
        self.appConnect = appConnect
        self.startTransfer = startTransfer
        self.total = total
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.newConnections = newConnections
    }
}

/// One HTTP response: status, headers, the (decoded) body and, from real transports, timing.
package struct HTTPResponse: Sendable {
    /// The HTTP status code of the final response (1xx interim responses are skipped).
    package var status: Int
    /// The headers of the final response, in order.
    package var headers: [HTTPHeader]
    /// The body after content decoding (gzip and the like are undone).
    package var body: [UInt8]
    /// libcurl's measurements; `nil` from transports that do not measure (fakes).
    package var timing: TransferTiming?
    /// The HTTP version the response came over (HTTP/2 only when the server offered it); `nil` from transports
    /// that do not report it (fakes).
    package var httpVersion: HTTPVersion?
    /// The bytes written to ``HTTPRequest/responseFile`` when the body went there; nil when it is in ``body``.
    package var fileBytes: Int64?

    /// A response.
    package init(
        status: Int, headers: [HTTPHeader] = [], body: [UInt8] = [], timing: TransferTiming? = nil, httpVersion: HTTPVersion? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.timing = timing
        self.httpVersion = httpVersion
    }

    /// The value of the first header called `name`, compared case-insensitively.
    package func header(_ name: String) -> String? {
        headers.first { $0.name.utf8.count == name.utf8.count && $0.name.lowercased() == name.lowercased() }?.value
    }
}
