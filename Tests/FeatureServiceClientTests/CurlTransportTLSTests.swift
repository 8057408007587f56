import FeatureServiceClient
import LocalFeatureServer
import Logging
import Testing

/// CurlTransport over HTTPS against the local service with a generated self-signed certificate (`openssl`).
@Suite struct CurlTransportTLSTests {
    /// Runs `body` against an HTTPS local service on 127.0.0.1, port 0, with a fresh self-signed certificate.
    static func withHTTPSServer<T: Sendable>(_ body: @Sendable (LocalFeatureServerEndpoint) async throws -> T) async throws -> T {
        var logger = Logger(label: "featureload.test-server")
        logger.logLevel = .critical
        var configuration = LocalFeatureServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.tls = .init(certificate: .selfSigned)
        return try await withLocalFeatureServer(configuration, logger: logger, body)
    }

    static func infoURL(_ endpoint: LocalFeatureServerEndpoint) -> String { endpoint.rootURL + "?f=json" }

    @Test("the generated certificate as caFile verifies the server; the response reports HTTP/2", .timeLimit(.minutes(1)))
    func trustedByCAFile() async throws {
        try await Self.withHTTPSServer { endpoint in
            #expect(endpoint.scheme == "https")
            let caFile = try #require(endpoint.certificatePath)
            var configuration = CurlTransportConfiguration()
            configuration.tls.caFile = caFile
            try await withCurlTransport(configuration: configuration) { transport in
                let response = try await transport.send(HTTPRequest(url: Self.infoURL(endpoint)))
                #expect(response.status == 200)
                #expect(String(decoding: response.body, as: UTF8.self).contains("currentVersion"))
                // The listener offers h2 in ALPN, which .automatic takes.
                #expect(response.httpVersion == .http2)
                let timing = try #require(response.timing)
                #expect(timing.appConnect > .zero, "a TLS handshake took place")
                #expect(timing.appConnect >= timing.connect)
            }
        }
    }

    @Test("without the CA the certificate is refused with a permanent tlsFailed error", .timeLimit(.minutes(1)))
    func refusedByDefault() async throws {
        try await Self.withHTTPSServer { endpoint in
            try await withCurlTransport { transport in
                let error = try await #require(throws: TransportError.self) {
                    try await transport.send(HTTPRequest(url: Self.infoURL(endpoint)))
                }
                #expect(error.kind == .tlsFailed, "\(error)")
                #expect(error.curlCode == 60, "CURLE_PEER_FAILED_VERIFICATION: \(error)")
                #expect(!error.mayHaveBeenSent)
                #expect(!error.isConnectionFailure)
                #expect(error.description.contains("caFile"))
                #expect(RetryClassification.classify(.transport(error.kind, mayHaveBeenSent: error.mayHaveBeenSent)) == .permanent)
            }
        }
    }

    @Test("a caFile that does not exist fails with tlsFailed, not a connection failure", .timeLimit(.minutes(1)))
    func missingCAFile() async throws {
        try await Self.withHTTPSServer { endpoint in
            var configuration = CurlTransportConfiguration()
            configuration.tls.caFile = "/nonexistent/featureload-ca.pem"
            try await withCurlTransport(configuration: configuration) { transport in
                let error = try await #require(throws: TransportError.self) {
                    try await transport.send(HTTPRequest(url: Self.infoURL(endpoint)))
                }
                #expect(error.kind == .tlsFailed, "\(error)")
            }
        }
    }

    @Test("insecure accepts the untrusted certificate; turning off only the host check still refuses it", .timeLimit(.minutes(1)))
    func insecure() async throws {
        try await Self.withHTTPSServer { endpoint in
            var configuration = CurlTransportConfiguration()
            configuration.insecure = true
            #expect(configuration.tls == .insecure)
            try await withCurlTransport(configuration: configuration) { transport in
                let response = try await transport.send(HTTPRequest(url: Self.infoURL(endpoint)))
                #expect(response.status == 200)
                #expect(response.httpVersion == .http2)
            }
            configuration.tls = .init(verifyPeer: true, verifyHost: false)
            try await withCurlTransport(configuration: configuration) { transport in
                let error = try await #require(throws: TransportError.self) {
                    try await transport.send(HTTPRequest(url: Self.infoURL(endpoint)))
                }
                #expect(error.kind == .tlsFailed, "\(error)")
            }
        }
    }

    @Test("the certificate also verifies under the name localhost", .timeLimit(.minutes(1)))
    func hostVerification() async throws {
        try await Self.withHTTPSServer { endpoint in
            let caFile = try #require(endpoint.certificatePath)
            let configuration = CurlTransportConfiguration(tls: .init(caFile: caFile))
            try await withCurlTransport(configuration: configuration) { transport in
                // localhost resolves to the loopback address the server listens on, and the certificate names it.
                let url = "https://localhost:\(endpoint.port)/arcgis/rest/services?f=json"
                let response = try await transport.send(HTTPRequest(url: url))
                #expect(response.status == 200)
            }
        }
    }
}
