import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Synchronization
import Testing

/// A fake ArcGIS Server with token security: generateToken issues `tok-1`, `tok-2`, … (expiring `lifetime` ms
/// after `now`), and every other request answers 498 unless it carries the newest token.
final class FakeTokenServer: Sendable {
    static let secretPassword = "pa55-SECRET-word"
    private let state = Mutex((issued: 0, now: Int64(1_000_000), revoked: false))
    let lifetime: Int64 = 3_600_000

    var issued: Int { state.withLock { $0.issued } }
    var now: Int64 { state.withLock { $0.now } }
    func advance(milliseconds: Int64) { state.withLock { $0.now += milliseconds } }
    /// Makes the current token invalid, as a server restart or expiry would.
    func revoke() { state.withLock { $0.revoked = true } }

    func answer(_ request: HTTPRequest) -> HTTPResponse {
        if request.path.hasSuffix("/generateToken") {
            guard request.formValue("username") == "editor", request.formValue("password") == Self.secretPassword else {
                return .json(#"{"error":{"code":400,"message":"Unable to generate token.","details":["Invalid username or password."]}}"#)
            }
            let (number, now) = state.withLock { state in
                state.issued += 1
                state.revoked = false
                return (state.issued, state.now)
            }
            return .json(#"{"token":"tok-\#(number)","expires":\#(now + lifetime),"ssl":false}"#)
        }
        let header = request.headers.first { $0.name == "X-Esri-Authorization" }?.value
        let presented = header.map { String($0.dropFirst("Bearer ".count)) } ?? request.formValue("token")
        let valid = state.withLock { !$0.revoked && presented == "tok-\($0.issued)" }
        guard valid else { return .json(#"{"error":{"code":498,"message":"Invalid token.","details":[]}}"#, status: 498) }
        return .json(#"{"count":5}"#)
    }
}

@Suite struct TokenTests {
    let layerURL = Fixtures.serviceURL + "/0"
    static let tokenURL = "http://service.test/arcgis/tokens/generateToken"

    func provider(
        _ server: FakeTokenServer, transport: any HTTPTransport, password: String = FakeTokenServer.secretPassword
    ) -> GeneratedTokenProvider {
        GeneratedTokenProvider(
            tokenURL: Self.tokenURL, credentials: .init(username: "editor", password: password), transport: transport,
            now: { server.now })
    }

    @Test("a static token goes in X-Esri-Authorization by default, or in the token parameter", .timeLimit(.minutes(1)))
    func staticToken() async throws {
        let transport = InMemoryTransport { _ in .json(#"{"count":1}"#) }
        let header = FeatureLayerClient(
            url: layerURL, transport: transport, authentication: .init(provider: StaticTokenProvider("abc")))
        _ = try await header.count()
        #expect(transport.requests[0].headers.contains(HTTPHeader("X-Esri-Authorization", "Bearer abc")))
        #expect(transport.requests[0].formValue("token") == nil)

        let parameter = FeatureLayerClient(
            url: layerURL, transport: transport, authentication: .init(provider: StaticTokenProvider("a&b"), placement: .parameter))
        _ = try await parameter.count()
        #expect(transport.requests[1].formValue("token") == "a&b", "form-encoded into the POST body")
        #expect(!transport.requests[1].url.contains("token"))

        let service = FeatureService(
            url: Fixtures.serviceURL, transport: InMemoryTransport { Fixtures.metadataHandler($0) },
            authentication: .init(provider: StaticTokenProvider("xyz"), placement: .parameter))
        _ = try await service.layerInfo(id: 0)
    }

    @Test("generateToken is POSTed as a form once and its token reused", .timeLimit(.minutes(1)))
    func generates() async throws {
        let server = FakeTokenServer()
        let transport = InMemoryTransport { server.answer($0) }
        let provider = provider(server, transport: transport)
        let layer = FeatureLayerClient(url: layerURL, transport: transport, authentication: .init(provider: provider))
        #expect(try await layer.count() == 5)
        #expect(try await layer.count() == 5)
        #expect(server.issued == 1)
        let generate = transport.requests[0]
        #expect(generate.method == .post)
        #expect(generate.formValue("f") == "json")
        #expect(generate.formValue("expiration") == "60")
        #expect(generate.formValue("client") == "requestip")
    }

    @Test("the token is renewed before it expires", .timeLimit(.minutes(1)))
    func refreshBeforeExpiry() async throws {
        let server = FakeTokenServer()
        let provider = provider(server, transport: InMemoryTransport { server.answer($0) })
        let first = try await provider.token()
        server.advance(milliseconds: server.lifetime - 200_000)  // more than the 2-minute margin left
        #expect(try await provider.token() == first)
        server.advance(milliseconds: 100_000)  // now inside the margin
        let second = try await provider.token()
        #expect(second != first)
        #expect(server.issued == 2)
    }

    @Test("on 498 the token is refreshed once, single-flight, and each request replayed once", .timeLimit(.minutes(1)))
    func singleFlight() async throws {
        let server = FakeTokenServer()
        let transport = InMemoryTransport { request in
            await Task.yield()  // let the concurrent requests interleave
            return server.answer(request)
        }
        let layer = FeatureLayerClient(url: layerURL, transport: transport, authentication: .init(provider: provider(server, transport: transport)))
        _ = try await layer.count()
        server.revoke()
        let outcomes = try await withThrowingTaskGroup(of: [Attempt].self) { group in
            for _ in 0..<20 {
                group.addTask { try await layer.count(where: "1=1", retry: .none).attempts }
            }
            return try await group.reduce(into: [[Attempt]]()) { $0.append($1) }
        }
        #expect(server.issued == 2, "one refresh for twenty 498s")
        // A request that started after the refresh carries the new token at once; the others were replayed once.
        #expect(outcomes.contains { $0.count == 2 })
        for attempts in outcomes where attempts.count == 2 {
            #expect(attempts[0].status == 498 && attempts[0].refreshedToken)
            #expect(attempts[1].succeeded)
        }
        #expect(outcomes.allSatisfy { $0.count <= 2 && $0.last?.succeeded == true })
    }

    @Test(
        "a static token refused with 498 fails with the ArcGIS error; a refreshed token refused again is an authentication failure",
        .timeLimit(.minutes(1)))
    func refusedTokens() async throws {
        let transport = InMemoryTransport { _ in .json(#"{"error":{"code":498,"message":"Invalid token.","details":[]}}"#) }
        let staticLayer = FeatureLayerClient(
            url: layerURL, transport: transport, authentication: .init(provider: StaticTokenProvider("s3cr3t-static")))
        let error = try await #require(throws: FeatureServiceError.self) { try await staticLayer.count() }
        #expect(error.arcgisError?.code == 498)
        #expect(error.attempts.count == 1)

        let server = FakeTokenServer()
        let generating = InMemoryTransport { request in
            request.path.hasSuffix("/generateToken")
                ? server.answer(request) : .json(#"{"error":{"code":498,"message":"Invalid token.","details":[]}}"#)
        }
        let layer = FeatureLayerClient(url: layerURL, transport: generating, authentication: .init(provider: provider(server, transport: generating)))
        let refused = try await #require(throws: FeatureServiceError.self) { try await layer.count() }
        #expect(refused.isAuthenticationFailure)
        #expect(refused.attempts.count == 2)
        #expect(!refused.description.contains("tok-"))
    }

    @Test("wrong credentials are an authentication failure that names neither the password nor a token", .timeLimit(.minutes(1)))
    func wrongPassword() async throws {
        let server = FakeTokenServer()
        let transport = InMemoryTransport { server.answer($0) }
        let layer = FeatureLayerClient(
            url: layerURL, transport: transport, authentication: .init(provider: provider(server, transport: transport, password: "wrong-Pa55")))
        let error = try await #require(throws: FeatureServiceError.self) { try await layer.count() }
        #expect(error.isAuthenticationFailure)
        #expect(error.operation == "generateToken")
        #expect(error.description.contains("Unable to generate token"))
        #expect(!error.description.contains("wrong-Pa55"))
    }
}
