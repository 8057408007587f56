/// Settings of a ``CurlTransport``.
///
/// ```swift
/// var configuration = CurlTransportConfiguration()
/// configuration.maxConnections = 128
/// configuration.requestTimeout = .seconds(30)
/// ```
public struct CurlTransportConfiguration: Sendable {
    /// The most connections kept open per host, and the size of the keep-alive cache
    /// (`CURLMOPT_MAX_HOST_CONNECTIONS` and `CURLMOPT_MAXCONNECTS`). Requests beyond it wait inside libcurl for a
    /// free connection. Default 64.
    public var maxConnections: Int
    /// The most time to establish a connection (`CURLOPT_CONNECTTIMEOUT_MS`). Default 10 s.
    public var connectTimeout: Duration
    /// The total time a request may take when ``HTTPRequest/timeout`` is `nil` (`CURLOPT_TIMEOUT_MS`). Default 60 s.
    public var requestTimeout: Duration
    /// Whether to ask for compressed responses and decode them (`CURLOPT_ACCEPT_ENCODING ""`). Default true.
    public var acceptEncoding: Bool
    /// The `User-Agent` header. Default `featureload`.
    public var userAgent: String

    /// Settings with the documented defaults.
    public init(
        maxConnections: Int = 64, connectTimeout: Duration = .seconds(10), requestTimeout: Duration = .seconds(60),
        acceptEncoding: Bool = true, userAgent: String = "featureload"
    ) {
        self.maxConnections = maxConnections
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.acceptEncoding = acceptEncoding
        self.userAgent = userAgent
    }
}

extension Duration {
    /// Whole milliseconds, at least 1 for any positive duration (libcurl reads 0 as "no timeout").
    var curlMilliseconds: Int {
        let (seconds, attoseconds) = components
        if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 1 }
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return Int.max / 2 }
        return max(1, Int(product) + Int(attoseconds / 1_000_000_000_000_000))
    }
}
