extension LocalFeatureServerConfiguration {
    /// HTTPS: the certificate the listener presents.
    ///
    /// The ArcGIS API for Python rewrites a portal URL to https, so `GIS("https://127.0.0.1:PORT/arcgis",
    /// verify_cert=False)` needs this listener (real-clients.md §2). With TLS on, the server speaks only HTTPS on its
    /// port (HTTP/1.1); run a second server for plain HTTP.
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

        /// TLS settings presenting `certificate`.
        public init(certificate: Certificate) {
            self.certificate = certificate
        }
    }
}
