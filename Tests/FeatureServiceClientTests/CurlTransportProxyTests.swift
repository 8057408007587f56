import FeatureServiceClient
import FeatureloadTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Proxy selection, with a loopback peer standing in for the proxy: a request for a host that does not resolve
/// can only succeed through it.
@Suite struct CurlTransportProxyTests {
    /// A host under the reserved `.invalid` top-level domain: never resolves, so a direct request fails.
    static let unreachableURL = "http://featureload-proxy-test.invalid/arcgis/rest/services?f=json"

    static func proxyPeer() throws -> LoopbackPeer {
        try LoopbackPeer { _ in LoopbackPeer.response(body: Array(#"{"proxied":true}"#.utf8)) }
    }

    @Test(".url sends requests to the proxy in absolute form", .timeLimit(.minutes(1)))
    func explicitProxy() async throws {
        let peer = try Self.proxyPeer()
        defer { peer.stop() }
        let configuration = CurlTransportConfiguration(proxy: .url("http://127.0.0.1:\(peer.port)"))
        try await withCurlTransport(configuration: configuration) { transport in
            let response = try await transport.send(HTTPRequest(url: Self.unreachableURL))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"proxied":true}"#)
        }
        let head = try #require(peer.requests.first?.head)
        #expect(head.hasPrefix("GET \(Self.unreachableURL) HTTP/1.1\r\n"), "\(head)")
        #expect(head.lowercased().contains("host: featureload-proxy-test.invalid"))
    }

    @Test(".environment follows http_proxy and no_proxy; .none ignores them", .timeLimit(.minutes(1)))
    func environmentProxy() async throws {
        let peer = try Self.proxyPeer()
        defer { peer.stop() }
        try await withTestServer { server in
            // Other suites run in this process and talk to 127.0.0.1 and localhost: no_proxy keeps them direct, so
            // it is set first and removed last. Earlier values (a developer's own proxy) are restored afterwards.
            try await Self.withEnvironment([
                ("no_proxy", "127.0.0.1,localhost,::1"), ("NO_PROXY", "127.0.0.1,localhost,::1"),
                ("http_proxy", "http://127.0.0.1:\(peer.port)"),
            ]) {
                try await withCurlTransport { transport in
                    let proxied = try await transport.send(HTTPRequest(url: Self.unreachableURL))
                    #expect(proxied.status == 200)
                    #expect(peer.requests.count == 1)
                    let direct = try await transport.send(HTTPRequest(url: server.rootURL + "?f=json"))
                    #expect(direct.status == 200)
                    #expect(String(decoding: direct.body, as: UTF8.self).contains("currentVersion"))
                    #expect(peer.requests.count == 1, "no_proxy kept the loopback request direct")
                }
                try await withCurlTransport(configuration: CurlTransportConfiguration(proxy: .none)) { transport in
                    let error = try await #require(throws: TransportError.self) {
                        try await transport.send(HTTPRequest(url: Self.unreachableURL))
                    }
                    #expect(error.kind == .couldNotResolveHost, "\(error)")
                    #expect(peer.requests.count == 1)
                }
            }
        }
    }

    /// Runs `body` with `variables` set in the process environment, in order, then restores them in reverse order.
    static func withEnvironment(_ variables: [(String, String)], _ body: () async throws -> Void) async throws {
        let saved = variables.map { name, _ in (name, getenv(name).map { String(cString: $0) }) }
        for (name, value) in variables { setenv(name, value, 1) }
        defer {
            for (name, value) in saved.reversed() {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        try await body()
    }
}
