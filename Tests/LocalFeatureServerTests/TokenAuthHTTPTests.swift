import FeatureModel
import FeatureServiceClient
import Foundation
import LocalFeatureServer
import Testing

/// Token security over real HTTP (libcurl against the server on port 0): generateToken, the three ways to send a
/// token, 498/499, expiry on an injected clock, authInfo, the body limit, and logs free of secrets.
@Suite struct TokenAuthHTTPTests {
    static let password = "Sup3r-Secret!"

    static func configure(_ clock: ManualMilliseconds) -> (inout LocalFeatureServerConfiguration) -> Void {
        { configuration in
            configuration.auth = .init(users: UserDirectory(["qa": password]), maximumExpirationMinutes: 120, now: clock.closure)
        }
    }

    static func generate(
        _ transport: CurlTransport, _ endpoint: LocalFeatureServerEndpoint, username: String = "qa", password: String = password,
        expiration: String? = nil
    ) async throws -> HTTPResponse {
        var fields = [
            FormField("username", username), FormField("password", password), FormField("client", "referer"), FormField("referer", "http://qa.local"),
            FormField("f", "json"),
        ]
        if let expiration { fields.append(FormField("expiration", expiration)) }
        return try await transport.send(HTTPRequest.form(url: "http://127.0.0.1:\(endpoint.port)/arcgis/tokens/generateToken", fields: fields))
    }

    @Test("generateToken issues a token; it opens every resource through header, query or form body", .timeLimit(.minutes(1)))
    func tokens() async throws {
        let clock = ManualMilliseconds()
        try await withConfiguredServer(Self.configure(clock)) { endpoint in
            try await withCurlTransport { transport in
                let answer = Wire.object(try await Self.generate(transport, endpoint))
                let token = try #require(answer["token"]?.stringValue)
                #expect(token.count == 64)
                #expect(answer["expires"]?.intValue == clock.now + 60 * 60_000)
                #expect(answer["ssl"] == .bool(false))

                let layer = endpoint.serviceURL("parks") + "/0"
                let ways: [HTTPRequest] = [
                    HTTPRequest(url: layer + "?f=json", headers: [HTTPHeader("X-Esri-Authorization", "Bearer \(token)")]),
                    HTTPRequest(url: layer + "?f=json", headers: [HTTPHeader("Authorization", "Bearer \(token)")]),
                    HTTPRequest(url: layer + "?f=json&token=\(token)"),
                    HTTPRequest.form(url: layer, fields: [FormField("f", "json"), FormField("token", token)]),
                    HTTPTestRequests.multipart(layer + "/query", [("where", "1=1"), ("token", token), ("f", "json")]),
                ]
                for request in ways {
                    let response = try await transport.send(request)
                    #expect(response.status == 200 && WireJSON.error(in: response.body) == nil, "\(request.headers): \(Wire.text(response))")
                }
                // A batch of edits with the token in the body is applied.
                let edit = try await transport.send(
                    HTTPRequest.form(
                        url: layer + "/applyEdits", fields: [FormField("adds", Wire.parkAdds()), FormField("token", token), FormField("f", "json")]))
                #expect(Wire.text(edit).contains(#""success":true"#), "\(Wire.text(edit))")
            }
        }
    }

    @Test("no token is 499, a wrong or expired one 498, wrong credentials are refused", .timeLimit(.minutes(1)))
    func rejections() async throws {
        let clock = ManualMilliseconds()
        try await withConfiguredServer(Self.configure(clock)) { endpoint in
            try await withCurlTransport { transport in
                let service = endpoint.serviceURL("parks")
                for url in [
                    endpoint.rootURL + "?f=json", service + "?f=json", service + "/0/query?where=1%3D1",
                    "http://127.0.0.1:\(endpoint.port)/arcgis/admin/stats",
                ] {
                    let response = try await transport.send(HTTPRequest(url: url))
                    #expect(response.status == 200)
                    #expect(WireJSON.error(in: response.body)?.code == 499, "\(url): \(Wire.text(response))")
                    #expect(WireJSON.error(in: response.body)?.message == "Token Required")
                }
                let bogus = try await transport.send(HTTPRequest(url: service + "?f=json&token=nope"))
                #expect(WireJSON.error(in: bogus.body)?.code == 498 && WireJSON.error(in: bogus.body)?.message == "Invalid Token")

                let wrong = try await Self.generate(transport, endpoint, password: "guess")
                #expect(WireJSON.error(in: wrong.body)?.code == 400 && Wire.object(wrong)["token"] == nil)
                #expect(WireJSON.error(in: wrong.body)?.details == ["Invalid username or password."])
                let get = try await transport.send(
                    HTTPRequest(url: "http://127.0.0.1:\(endpoint.port)/arcgis/tokens/generateToken?username=qa&password=x"))
                #expect(WireJSON.error(in: get.body) != nil)

                // Expiry: 5 minutes asked, the clock moves 6 minutes on.
                let token = try #require(Wire.object(try await Self.generate(transport, endpoint, expiration: "5"))["token"]?.stringValue)
                let capped = Wire.object(try await Self.generate(transport, endpoint, expiration: "100000"))
                #expect(capped["expires"]?.intValue == clock.now + 120 * 60_000)
                #expect(WireJSON.error(in: try await transport.send(HTTPRequest(url: service + "?f=json&token=\(token)")).body) == nil)
                clock.advance(minutes: 6)
                let expired = try await transport.send(HTTPRequest(url: service + "?f=json&token=\(token)"))
                #expect(WireJSON.error(in: expired.body)?.code == 498)
                #expect(WireJSON.error(in: expired.body)?.details == ["The token has expired."])

                let stats = Wire.object(
                    try await transport.send(
                        HTTPRequest(url: "http://127.0.0.1:\(endpoint.port)/arcgis/admin/stats?token=\(capped["token"]?.stringValue ?? "")")))
                #expect(stats["tokenRequired"]?.intValue == 4 && stats["invalidToken"]?.intValue == 2, "\(stats)")
            }
        }
    }

    @Test("rest/info advertises token security; with the HTTP-status option 499 is also the status", .timeLimit(.minutes(1)))
    func restInfoAndStatus() async throws {
        let clock = ManualMilliseconds()
        try await withConfiguredServer({ configuration in
            Self.configure(clock)(&configuration)
            configuration.auth.tokenErrorsUseHTTPStatus = true
        }) { endpoint in
            try await withCurlTransport { transport in
                let info = try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(endpoint.port)/arcgis/rest/info?f=json"))
                let authInfo = try WireJSON.decode(RestInfo.self, from: info.body).authInfo
                #expect(authInfo?.isTokenBasedSecurity == true)
                #expect(authInfo?.tokenServicesUrl == "http://127.0.0.1:\(endpoint.port)/arcgis/tokens/")
                let missing = try await transport.send(HTTPRequest(url: endpoint.serviceURL("parks") + "?f=json"))
                #expect(missing.status == 499 && WireJSON.error(in: missing.body)?.code == 499)
                let invalid = try await transport.send(HTTPRequest(url: endpoint.serviceURL("parks") + "?f=json&token=x"))
                #expect(invalid.status == 498)
            }
        }
        // Without --users, rest/info says so and everything is open.
        try await withConfiguredServer({ _ in }) { endpoint in
            try await withCurlTransport { transport in
                let info = try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(endpoint.port)/arcgis/rest/info?f=json"))
                #expect(try WireJSON.decode(RestInfo.self, from: info.body).authInfo?.isTokenBasedSecurity == false)
                #expect(WireJSON.error(in: try await transport.send(HTTPRequest(url: endpoint.serviceURL("parks") + "?f=json")).body) == nil)
            }
        }
    }

    @Test("tokens and passwords never reach the logs, even at trace level", .timeLimit(.minutes(1)))
    func logsHoldNoSecrets() async throws {
        let capture = LogCapture()
        let clock = ManualMilliseconds()
        let token = try await withConfiguredServer(logger: capture.logger(), Self.configure(clock)) { endpoint in
            try await withCurlTransport { transport in
                _ = try await Self.generate(transport, endpoint, password: "wrong-" + Self.password)
                let token = try #require(Wire.object(try await Self.generate(transport, endpoint))["token"]?.stringValue)
                let service = endpoint.serviceURL("parks")
                _ = try await transport.send(HTTPRequest(url: service + "/0/query?where=nope%20%3D&token=\(token)"))
                _ = try await transport.send(
                    HTTPRequest(url: service + "/7?f=json", headers: [HTTPHeader("X-Esri-Authorization", "Bearer \(token)")]))
                _ = try await transport.send(
                    HTTPRequest.form(url: service + "/0/applyEdits", fields: [FormField("adds", "[{"), FormField("token", token)]))
                _ = try await transport.send(HTTPRequest(url: service + "?token=\(token)x"))
                return token
            }
        }
        let logs = capture.text
        #expect(logs.contains("token issued"), "the capture works")
        #expect(!logs.contains(token) && !logs.contains(Self.password) && !logs.contains(String(token.prefix(16))))
    }

    @Test("a body over the limit gets a clear 413 envelope and changes nothing", .timeLimit(.minutes(1)))
    func bodyLimit() async throws {
        try await withConfiguredServer({ $0.limits = .init(maximumRequestBodySize: 4096) }) { endpoint in
            try await withCurlTransport { transport in
                let url = endpoint.serviceURL("parks") + "/0/applyEdits"
                let before = try #require(try await Wire.count(transport, endpoint.serviceURL("parks")))
                let big = try await transport.send(
                    HTTPRequest.form(url: url, fields: [FormField("adds", Wire.parkAdds(100)), FormField("f", "json")]))
                let error = try #require(WireJSON.error(in: big.body))
                #expect(big.status == 200 && error.code == 413)
                #expect(error.details.first?.contains("4 KiB") == true && error.details.first?.contains("--max-request-body") == true)
                #expect(try await Wire.count(transport, endpoint.serviceURL("parks")) == before)
                let small = try await transport.send(
                    HTTPRequest.form(url: url, fields: [FormField("adds", Wire.parkAdds(2)), FormField("f", "json")]))
                #expect(WireJSON.error(in: small.body) == nil, "\(Wire.text(small))")
            }
        }
    }
}

/// Requests shared by the HTTP suites of this file group.
enum HTTPTestRequests {
    static func multipart(_ url: String, _ fields: [(String, String)], boundary: String = "----featureloadAuth7MA4") -> HTTPRequest {
        var body = ""
        for (name, value) in fields { body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n" }
        body += "--\(boundary)--\r\n"
        return HTTPRequest(
            method: .post, url: url, headers: [HTTPHeader("Content-Type", "multipart/form-data; boundary=\(boundary)")], body: Array(body.utf8))
    }
}
