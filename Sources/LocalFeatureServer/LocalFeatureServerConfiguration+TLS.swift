extension LocalFeatureServerConfiguration {
    /// HTTPS: the certificate the listener presents.
    ///
    /// The ArcGIS API for Python rewrites a portal URL to https, so `GIS("https://127.0.0.1:PORT/arcgis",
    /// verify_cert=False)` needs this listener (real-clients.md §2). With TLS on, the server speaks only HTTPS on its
    /// port; run a second server for plain HTTP. HTTP/2 and HTTP/1.1 share the port, chosen per connection by ALPN
    /// (``offersHTTP2``).
    public struct TLS: Sendable, Hashable {
        /// Where the certificate and its private key come from.
        public enum Certificate: Sendable, Hashable {
            /// PEM files: the certificate (chain, leaf first) and its unencrypted private key (`--tls-cert`, `--tls-key`).
            case files(certificatePath: String, privateKeyPath: String)
            /// A certificate generated at start (`--tls-self-signed`) by the `openssl` command: EC P-256, valid for 30
            /// days, for `localhost`, `127.0.0.1` and `::1` plus ``LocalFeatureServerConfiguration/host``. It lives in a
            /// temporary directory (``LocalFeatureServerEndpoint/certificatePath``) deleted when the server stops.
            case selfSigned
        }

        /// The certificate source.
        public var certificate: Certificate
        /// Whether the listener offers HTTP/2 (ALPN `h2`, then `http/1.1`). A client that asks for HTTP/1.1 or sends
        /// no ALPN gets HTTP/1.1 either way; false offers HTTP/1.1 only. Default true.
        public var offersHTTP2: Bool

        /// TLS settings presenting `certificate`, offering HTTP/2 next to HTTP/1.1 unless `offersHTTP2` is false.
        public init(certificate: Certificate, offersHTTP2: Bool = true) {
            self.certificate = certificate
            self.offersHTTP2 = offersHTTP2
        }
    }
}
