/// Where the time of one transfer went, and how many bytes crossed the wire, as libcurl measured them.
///
/// Every duration counts from the start of the transfer, so they grow in this order: `nameLookup` ≤ `connect` ≤
/// `appConnect` ≤ `startTransfer` ≤ `total`. On a reused keep-alive connection the first three are (near) zero.
public struct TransferTiming: Sendable, Hashable {
    /// Until the host name was resolved.
    public var nameLookup: Duration
    /// Until the TCP connection was established.
    public var connect: Duration
    /// Until the TLS handshake was done (zero for plain HTTP).
    public var appConnect: Duration
    /// Until the first response byte arrived (time to first byte).
    public var startTransfer: Duration
    /// The whole transfer.
    public var total: Duration
    /// Bytes sent: request line, headers and body.
    public var bytesSent: Int64
    /// Bytes received as they were on the wire: headers plus the (possibly compressed) body.
    public var bytesReceived: Int64
    /// New connections this transfer opened: 0 when it reused a keep-alive connection.
    public var newConnections: Int

    /// A timing record; transports fill it, fakes may too.
    public init(
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
public struct HTTPResponse: Sendable {
    /// The HTTP status code of the final response (1xx interim responses are skipped).
    public var status: Int
    /// The headers of the final response, in order.
    public var headers: [HTTPHeader]
    /// The body after content decoding (gzip and the like are undone).
    public var body: [UInt8]
    /// libcurl's measurements; `nil` from transports that do not measure (fakes).
    public var timing: TransferTiming?
    /// The HTTP version the response came over (HTTP/2 only when the server offered it); `nil` from transports
    /// that do not report it (fakes).
    public var httpVersion: HTTPVersion?
    /// The bytes written to ``HTTPRequest/responseFile`` when the body went there; nil when it is in ``body``.
    public var fileBytes: Int64?

    /// A response.
    public init(
        status: Int, headers: [HTTPHeader] = [], body: [UInt8] = [], timing: TransferTiming? = nil, httpVersion: HTTPVersion? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.timing = timing
        self.httpVersion = httpVersion
    }

    /// The value of the first header called `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.utf8.count == name.utf8.count && $0.name.lowercased() == name.lowercased() }?.value
    }
}
