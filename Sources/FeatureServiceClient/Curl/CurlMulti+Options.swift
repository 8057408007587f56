internal import CCurl

/// The connection-level libcurl options a ``CurlTransportConfiguration`` implies: HTTP version, multiplexing,
/// TLS verification and proxy. A pure value, so the mapping is tested without I/O.
struct CurlConnectionOptions: Equatable {
    /// `CURLOPT_HTTP_VERSION`.
    var httpVersion: Int
    /// `CURLMOPT_PIPELINING` on the multi handle.
    var pipelining: Int
    /// `CURLOPT_PIPEWAIT` for `https://` URLs: 1 makes a request wait for a connection that may multiplex rather
    /// than open a new one.
    var pipeWait: Int
    /// Whether `CURLOPT_PIPEWAIT` applies to plain `http://` too (only with prior knowledge: otherwise plain HTTP is
    /// HTTP/1.1, and waiting would hold a burst of requests behind the first connection's first response).
    var pipeWaitWithoutTLS: Bool
    /// `CURLOPT_SSL_VERIFYPEER`.
    var verifyPeer: Int
    /// `CURLOPT_SSL_VERIFYHOST` (2 checks the name, 0 does not; 1 is not a valid choice).
    var verifyHost: Int
    /// `CURLOPT_CAINFO`, or nil for libcurl's built-in store.
    var caFile: String?
    /// `CURLOPT_PROXY`, or nil to leave libcurl's default (the environment variables); "" means no proxy.
    var proxy: String?

    /// The options for `configuration`.
    init(_ configuration: CurlTransportConfiguration) {
        switch configuration.httpVersion {
        case .automatic: httpVersion = Int(CURL_HTTP_VERSION_2TLS)
        case .http1_1: httpVersion = Int(CURL_HTTP_VERSION_1_1)
        case .http2PriorKnowledge: httpVersion = Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)
        }
        let multiplexes = configuration.httpVersion.multiplexes
        pipelining = multiplexes ? Int(CURLPIPE_MULTIPLEX) : Int(CURLPIPE_NOTHING)
        pipeWait = multiplexes ? 1 : 0
        pipeWaitWithoutTLS = configuration.httpVersion == .http2PriorKnowledge
        verifyPeer = configuration.tls.verifyPeer ? 1 : 0
        verifyHost = configuration.tls.verifyHost ? 2 : 0
        caFile = configuration.tls.caFile
        switch configuration.proxy {
        case .environment: proxy = nil
        case .none: proxy = ""
        case .url(let url): proxy = url
        }
    }
}

extension CurlMulti {
    /// Sets multiplexing on the multi handle (`CURLMOPT_PIPELINING`); called once from `init`.
    ///
    /// `CURLMOPT_MAX_HOST_CONNECTIONS` stays ``CurlTransportConfiguration/maxConnections``: with HTTP/2 it caps
    /// connections that libcurl opens only when the existing ones are out of streams, so many streams share few
    /// connections; with HTTP/1.1 it is the number of concurrent requests per host.
    func configureMultiplexing() {
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, CurlConnectionOptions(configuration).pipelining)
    }

    /// Sets the connection-level options of every transfer (HTTP version, TLS verification, CA file, proxy) on
    /// `easy` for a transfer of `url`, after `curl_easy_reset`. Driver thread only.
    /// - Returns: nil, or the first failing option's code (such as an HTTP version libcurl was built without).
    func configureConnection(_ easy: UnsafeMutableRawPointer, url: String) -> CURLcode? {
        let options = connectionOptions
        var code = ccurl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, options.httpVersion)
        guard code == CURLE_OK else { return code }
        if options.pipeWait != 0 && (options.pipeWaitWithoutTLS || Self.isHTTPS(url)) {
            _ = ccurl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, options.pipeWait)
        }
        _ = ccurl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, options.verifyPeer)
        _ = ccurl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, options.verifyHost)
        if let caFile = options.caFile {
            // libcurl copies string options, so the temporary C string may go away afterwards.
            code = caFile.withCString { ccurl_easy_setopt_string(easy, CURLOPT_CAINFO, $0) }
            guard code == CURLE_OK else { return code }
        }
        if let proxy = options.proxy {
            code = proxy.withCString { ccurl_easy_setopt_string(easy, CURLOPT_PROXY, $0) }
        }
        return code == CURLE_OK ? nil : code
    }

    /// Whether `url` starts with `https://`, in any letter case.
    static func isHTTPS(_ url: String) -> Bool {
        // Compared in place, case folded (`:` and `/` already have the bit set): it runs for every request.
        url.utf8.count > 8 && zip(url.utf8, "https://".utf8).allSatisfy { $0 | 0x20 == $1 }
    }

    /// The HTTP version of the finished transfer on `easy` (`CURLINFO_HTTP_VERSION`), or nil if libcurl reports none.
    static func negotiatedHTTPVersion(_ easy: UnsafeMutableRawPointer) -> HTTPVersion? {
        var value = 0
        guard ccurl_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &value) == CURLE_OK else { return nil }
        return HTTPVersion(curlHTTPVersion: value)
    }
}

extension HTTPVersion {
    /// The version for a `CURLINFO_HTTP_VERSION` value, or nil for 0 (no response) and unknown values.
    init?(curlHTTPVersion value: Int) {
        switch value {
        case Int(CURL_HTTP_VERSION_1_0): self = .http1_0
        case Int(CURL_HTTP_VERSION_1_1): self = .http1_1
        case Int(CURL_HTTP_VERSION_2_0): self = .http2
        case Int(CURL_HTTP_VERSION_3): self = .http3
        default: return nil
        }
    }
}
