import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Testing

@Suite struct ErrorRedactionTests {
    static let token = "TOKEN-zq81-secret"

    /// Every way an operation can fail, as the transport sees it.
    static let failures: [(String, @Sendable (HTTPRequest) throws -> HTTPResponse)] = [
        ("transport", { request in throw TransportError(.timedOut, url: request.url, message: "Operation timed out", mayHaveBeenSent: true) }),
        ("HTTP status", { _ in .json("<html>bad gateway</html>", status: 502, contentType: "text/html") }),
        (
            "ArcGIS error",
            { _ in .json(#"{"error":{"code":400,"message":"Unable to complete operation.","details":["'where' parameter is invalid"]}}"#) }
        ),
        ("undecodable", { _ in .json("not json") }),
        ("token refused", { _ in .json(#"{"error":{"code":498,"message":"Invalid token.","details":[]}}"#, status: 498) }),
    ]

    @Test(
        "no error description, debug description or dump contains the token", .timeLimit(.minutes(1)), arguments: [TokenPlacement.header, .parameter])
    func noTokenInErrors(placement: TokenPlacement) async throws {
        for (name, handler) in Self.failures {
            let transport = InMemoryTransport { try handler($0) }
            let layer = FeatureLayerClient(
                url: Fixtures.serviceURL + "/0?token=" + Self.token, transport: transport,
                authentication: .init(provider: StaticTokenProvider(Self.token), placement: placement), clock: ManualClock())
            let error = try await #require(throws: FeatureServiceError.self, "\(name)") {
                try await layer.count(where: "name = 'x'", retry: RetryPolicy(maximumAttempts: 2))
            }
            var dumped = ""
            dump(error, to: &dumped)
            for text in [error.description, String(reflecting: error), dumped, error.transportError?.description ?? ""] {
                #expect(!text.contains(Self.token), "\(name): \(text)")
            }
            #expect(error.description.contains("count query at \(Fixtures.serviceURL)/0/query"), "\(name) names the operation and layer")
            #expect(transport.requests.allSatisfy { $0.url.contains(Self.token) }, "\(name): the token in the layer's URL did travel")
            if placement == .header {
                // The provider's token went as the header, on every request.
                let sent = transport.requests.allSatisfy { request in
                    request.headers.contains { $0.name.lowercased() == "x-esri-authorization" && $0.value == "Bearer " + Self.token }
                }
                #expect(sent, "\(name): the provider's token went in the X-Esri-Authorization header")
            }
        }
    }

    @Test("a generateToken that gets no answer names neither the password nor the token URL's query", .timeLimit(.minutes(1)))
    func generateTokenUnreachable() async throws {
        let transport = InMemoryTransport { request in
            if request.path.hasSuffix("/generateToken") { throw TransportError(.couldNotConnect, url: request.url, message: "Connection refused") }
            return .json(#"{"count":1}"#)
        }
        let provider = GeneratedTokenProvider(
            tokenURL: "http://gis.test/arcgis/tokens/generateToken?token=" + Self.token,
            credentials: .init(username: "editor", password: Self.token), transport: transport)
        let layer = FeatureLayerClient(url: Fixtures.serviceURL + "/0", transport: transport, authentication: .init(provider: provider))
        let error = try await #require(throws: FeatureServiceError.self) { try await layer.count() }
        #expect(error.operation == "generateToken")
        #expect(error.transportError?.kind == .couldNotConnect)
        var dumped = ""
        dump(error, to: &dumped)
        for text in [error.description, dumped] {
            #expect(!text.contains(Self.token), "\(text)")
        }
    }

    @Test("tokens, credentials and providers print redacted")
    func redactedValues() {
        var dumped = ""
        let token = AccessToken(Self.token, expires: 5)
        let credentials = GeneratedTokenProvider.Credentials(username: "editor", password: Self.token)
        dump(token, to: &dumped)
        dump(credentials, to: &dumped)
        let provider = GeneratedTokenProvider(
            tokenURL: "https://gis.test/arcgis/tokens/generateToken?token=" + Self.token, credentials: credentials,
            transport: InMemoryTransport { _ in .json("{}") })
        for text in [
            token.description, String(reflecting: token), credentials.description, String(reflecting: credentials), dumped,
            StaticTokenProvider(Self.token).description, provider.description,
        ] {
            #expect(!text.contains(Self.token), "\(text)")
        }
        #expect(credentials.description.contains("editor"))
    }

    @Test("a per-edit failure carries the ArcGIS code and description", .timeLimit(.minutes(1)))
    func perEditFailure() async throws {
        let transport = InMemoryTransport { _ in
            .json(
                #"{"addResults":[{"success":false,"error":{"code":1001,"description":"Field name cannot be null."}}],"updateResults":[],"deleteResults":[]}"#
            )
        }
        let outcome = try await FeatureLayerClient(url: Fixtures.serviceURL + "/0", transport: transport).applyEdits(
            LayerEdits(adds: [Feature(attributes: [:])]), options: .init(rollbackOnFailure: false), retry: RetryPolicy())
        #expect(outcome.adds.map(\.status) == [.failed])
        #expect(outcome.failures == [.failure(code: 1001, description: "Field name cannot be null.")])
        #expect(outcome.attempts.count == 1, "per-edit failures are never retried")
    }
}
