/// Settings of a ``CurlTransport``.
///
/// ```swift
/// var configuration = CurlTransportConfiguration()
/// configuration.maxConnections = 128
/// configuration.requestTimeout = .seconds(30)
/// configuration.tls.caFile = "/etc/featureload/company-ca.pem"
/// ```
///
/// Defaults are safe: TLS certificates and host names are verified, proxies come from the standard environment
/// variables, HTTP/2 is used when a TLS server offers it, and request bodies go out uncompressed.
public struct CurlTransportConfiguration: Sendable {
    /// The most connections kept open per host, and the size of the keep-alive cache
    /// (`CURLMOPT_MAX_HOST_CONNECTIONS` and `CURLMOPT_MAXCONNECTS`). Requests beyond it wait inside libcurl for a
    /// free connection (HTTP/1.1) or a free stream (HTTP/2). Default 64.
    public var maxConnections: Int
    /// The most time to establish a connection (`CURLOPT_CONNECTTIMEOUT_MS`). Default 10 s.
    public var connectTimeout: Duration
    /// The total time a request may take when a request sets no timeout of its own (`CURLOPT_TIMEOUT_MS`). Default 60 s.
    public var requestTimeout: Duration
    /// Whether to ask for compressed responses and decode them (`CURLOPT_ACCEPT_ENCODING ""`). Default true.
    public var acceptEncoding: Bool
    /// The `User-Agent` header. Default `featureload`.
    public var userAgent: String
    /// Which HTTP version to speak. Default ``HTTPVersionPolicy/automatic``.
    public var httpVersion: HTTPVersionPolicy
    /// Certificate verification. Default: peer and host name verified against the system's CA store.
    public var tls: TLS
    /// Which proxy to use. Default ``Proxy/environment``.
    public var proxy: Proxy
    /// Whether to gzip POST bodies of at least 1 KiB and send them with
    /// `Content-Encoding: gzip`. Default false.
    ///
    /// Only for services known to decode compressed request bodies: neither ArcGIS Server nor
    /// `featureload serve` does, and a service that does not answers with an error or misreads the body.
    /// Compression runs on the sending task, not on the transport's driver thread.
    public var compressRequestBodies: Bool
    /// The largest response body held in memory, in bytes; a larger one fails the request with
    /// ``TransportError/Kind/responseTooLarge`` as soon as it passes the limit, so a server that streams without end
    /// cannot exhaust memory. Attachments downloaded to a file are not held and not limited.
    /// Default 256 MiB.
    public var maximumResponseSize: Int

    /// The HTTP version a ``CurlTransport`` speaks (`CURLOPT_HTTP_VERSION`). The version actually used is reported
    /// per response.
    ///
    /// With HTTP/2, many requests share one connection as separate streams (multiplexing, up to libcurl's 100
    /// concurrent streams per connection) and a request waits for an existing connection to confirm HTTP/2 rather
    /// than opening its own (`CURLOPT_PIPEWAIT`). For load testing that means **fewer connections than virtual
    /// users**: the server sees a handful of busy connections instead of one per client, which is what browsers
    /// and HTTP/2 proxies do, but not what many independent HTTP/1.1 clients do. To load a server with one
    /// connection per concurrent request, choose ``http1_1``.
    public enum HTTPVersionPolicy: Sendable, Hashable {
        /// HTTP/2 over TLS when the server offers it during the handshake (ALPN), HTTP/1.1 otherwise and for
        /// plain `http://` (`CURL_HTTP_VERSION_2TLS`). Multiplexes.
        case automatic
        /// HTTP/1.1 only, one request at a time per connection (`CURL_HTTP_VERSION_1_1`); no multiplexing.
        case http1_1
        /// HTTP/2 from the first byte, also without TLS (h2c), for servers known to speak it
        /// (`CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE`). An HTTP/1.1-only server fails such requests. Multiplexes.
        case http2PriorKnowledge

        /// Whether requests may share connections as HTTP/2 streams.
        var multiplexes: Bool { self != .http1_1 }
    }

    /// TLS certificate verification for `https://` URLs.
    ///
    /// ```swift
    /// configuration.tls = .init(caFile: certificatePath)   // trust a private CA or a self-signed certificate
    /// configuration.tls = .insecure                        // test servers only: verify nothing
    /// ```
    public struct TLS: Sendable, Hashable {
        /// Whether the server's certificate chain must lead to a trusted CA (`CURLOPT_SSL_VERIFYPEER`). Default true.
        public var verifyPeer: Bool
        /// Whether the certificate must name the host of the URL (`CURLOPT_SSL_VERIFYHOST` 2). Default true.
        public var verifyHost: Bool
        /// A PEM file of CA certificates to trust instead of the system's store (`CURLOPT_CAINFO`); a self-signed
        /// server certificate can be its own CA. Default nil: the system store.
        public var caFile: String?

        /// Verification settings; the defaults verify everything against the system's CA store.
        public init(verifyPeer: Bool = true, verifyHost: Bool = true, caFile: String? = nil) {
            self.verifyPeer = verifyPeer
            self.verifyHost = verifyHost
            self.caFile = caFile
        }

        /// No verification at all: any certificate for any host is accepted. The connection is still encrypted
        /// but not authenticated, so anyone on the path can read and change it. For test servers only.
        public static let insecure = TLS(verifyPeer: false, verifyHost: false)

        /// Whether both checks are off.
        public var isInsecure: Bool { !verifyPeer && !verifyHost }
    }

    /// The proxy requests go through.
    public enum Proxy: Sendable, Hashable {
        /// libcurl reads the standard environment variables for each new connection: `http_proxy` (lower case
        /// only), `https_proxy`/`HTTPS_PROXY`, `all_proxy`/`ALL_PROXY`, and `no_proxy`/`NO_PROXY` (a list of hosts
        /// reached directly, such as `127.0.0.1,localhost`). No variable set: direct.
        case environment
        /// Always direct, whatever the environment says.
        case none
        /// This proxy, such as `http://proxy.example.com:3128` (`CURLOPT_PROXY`); `no_proxy`/`NO_PROXY` still apply.
        case url(String)
    }

    /// Settings with the documented defaults.
    public init(
        maxConnections: Int = 64, connectTimeout: Duration = .seconds(10), requestTimeout: Duration = .seconds(60),
        acceptEncoding: Bool = true, userAgent: String = "featureload", httpVersion: HTTPVersionPolicy = .automatic,
        tls: TLS = .init(), proxy: Proxy = .environment, compressRequestBodies: Bool = false, maximumResponseSize: Int = 256 << 20
    ) {
        self.maximumResponseSize = maximumResponseSize
        self.maxConnections = maxConnections
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.acceptEncoding = acceptEncoding
        self.userAgent = userAgent
        self.httpVersion = httpVersion
        self.tls = tls
        self.proxy = proxy
        self.compressRequestBodies = compressRequestBodies
    }

    /// The convenience switch for test servers: `true` turns off both TLS checks (``TLS/insecure``), `false`
    /// restores both. Only ever off by explicit choice.
    public var insecure: Bool {
        get { tls.isInsecure }
        set {
            tls.verifyPeer = !newValue
            tls.verifyHost = !newValue
        }
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
