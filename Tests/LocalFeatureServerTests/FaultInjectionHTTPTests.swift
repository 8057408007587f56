import FeatureModel
import FeatureServiceClient
import Foundation
import LocalFeatureServer
import Testing

/// Every fault kind over real HTTP: the libcurl transport against the server on port 0, driven through `serve`'s
/// configuration and the admin endpoint. Faulted requests that lose their connection go out on a fresh transport,
/// so libcurl's silent retry of a request on a reused connection cannot hide the fault.
@Suite struct FaultInjectionHTTPTests {
    static func admin(_ endpoint: LocalFeatureServerEndpoint) -> String { "http://127.0.0.1:\(endpoint.port)/arcgis/admin" }

    static func setFaults(_ transport: CurlTransport, _ endpoint: LocalFeatureServerEndpoint, _ json: String) async throws -> HTTPResponse {
        try await transport.send(
            HTTPRequest(
                method: .post, url: admin(endpoint) + "/faults", headers: [HTTPHeader("Content-Type", "application/json")], body: Array(json.utf8)))
    }

    static func stats(_ transport: CurlTransport, _ endpoint: LocalFeatureServerEndpoint) async throws -> [String: JSONValue] {
        Wire.object(try await transport.send(HTTPRequest(url: admin(endpoint) + "/stats")))
    }

    static func faultCount(_ stats: [String: JSONValue], _ kind: String) -> Int64 {
        guard case .object(let faults)? = stats["faults"] else { return 0 }
        return faults[kind]?.intValue ?? 0
    }

    static func transportError(_ request: HTTPRequest, timeout: Duration? = nil) async -> TransportError? {
        var request = request
        request.timeout = timeout
        do {
            _ = try await withCurlTransport { transport in try await transport.send(request) }
            return nil
        } catch {
            return error as? TransportError
        }
    }

    @Test("HTTP 500, 503 and 429 (with Retry-After), and ArcGIS errors at HTTP 200, each announced by a header", .timeLimit(.minutes(1)))
    func errorAnswers() async throws {
        try await withConfiguredServer({ _ in }) { endpoint in
            try await withCurlTransport { transport in
                let query = endpoint.serviceURL("parks") + "/0/query?where=1%3D1&f=json"
                let cases: [(String, Int, Int)] = [
                    ("http500", 500, 500), ("http503", 503, 503), ("http429", 429, 429), ("arcgisError500", 200, 500), ("arcgisError503", 200, 503),
                ]
                for (kind, status, code) in cases {
                    let set = try await Self.setFaults(
                        transport, endpoint, #"{"faults":[{"kind":"\#(kind)","rate":1,"retryAfter":7,"operation":"query"}]}"#)
                    #expect(Wire.object(set)["success"] == .bool(true), "\(Wire.text(set))")
                    let response = try await transport.send(HTTPRequest(url: query))
                    #expect(response.status == status, "\(kind)")
                    #expect(response.header("X-Featureload-Fault") == kind)
                    #expect(response.header("Content-Type") == "application/json; charset=utf-8")
                    #expect(WireJSON.error(in: response.body)?.code == code, "\(kind): \(Wire.text(response))")
                    #expect(response.header("Retry-After") == (kind == "http429" ? "7" : nil))
                    // Out of scope: the layer document is untouched.
                    let layer = try await transport.send(HTTPRequest(url: endpoint.serviceURL("parks") + "/0?f=json"))
                    #expect(layer.status == 200 && WireJSON.error(in: layer.body) == nil && layer.header("X-Featureload-Fault") == nil)
                }
                let stats = try await Self.stats(transport, endpoint)
                for (kind, _, _) in cases { #expect(Self.faultCount(stats, kind) == 1, "\(kind): \(stats)") }
                #expect((stats["requests"]?.intValue ?? 0) >= 10)
            }
        }
    }

    @Test("per-edit failures inside applyEdits: reported per edit, or the whole batch rolled back", .timeLimit(.minutes(1)))
    func editFailures() async throws {
        try await withConfiguredServer({
            $0.faults = .init(rules: [FaultRule(kind: .editFailure, rate: 1, scope: FaultScope(operation: "applyEdits"))])
        }) { endpoint in
            try await withCurlTransport { transport in
                let service = endpoint.serviceURL("parks")
                let before = try #require(try await Wire.count(transport, service))
                let partial = try await transport.send(
                    HTTPRequest.form(
                        url: service + "/0/applyEdits",
                        fields: [FormField("adds", Wire.parkAdds(3)), FormField("rollbackOnFailure", "false"), FormField("f", "json")]))
                #expect(partial.header("X-Featureload-Fault") == "editFailure")
                let results = try WireJSON.decode(ApplyEditsResult.self, from: partial.body)
                #expect(
                    results.addResults.count == 3 && results.addResults.allSatisfy { !$0.success && $0.error?.code == 1017 }, "\(Wire.text(partial))")
                let rolledBack = try await transport.send(
                    HTTPRequest.form(url: service + "/0/applyEdits", fields: [FormField("adds", Wire.parkAdds(2)), FormField("f", "json")]))
                #expect(WireJSON.error(in: rolledBack.body)?.code == 400)
                #expect(WireJSON.error(in: rolledBack.body)?.details.last == "Operation rolled back.")
                #expect(try await Wire.count(transport, service) == before)
                #expect(Self.faultCount(try await Self.stats(transport, endpoint), "editFailure") == 5)
            }
        }
    }

    @Test("a connection dropped before the handler changes nothing; one dropped after the commit keeps the edit", .timeLimit(.minutes(1)))
    func droppedConnections() async throws {
        try await withConfiguredServer({
            $0.faults = .init(rules: [FaultRule(kind: .dropBeforeHandler, rate: 1, scope: FaultScope(operation: "applyEdits"))])
        }) { endpoint in
            try await withCurlTransport { control in
                let service = endpoint.serviceURL("parks")
                let edit = HTTPRequest.form(url: service + "/0/applyEdits", fields: [FormField("adds", Wire.parkAdds()), FormField("f", "json")])
                let before = try #require(try await Wire.count(control, service))
                let early = await Self.transportError(edit)
                #expect(early?.kind == .emptyReply, "\(String(describing: early))")
                #expect(try await Wire.count(control, service) == before)

                _ = try await Self.setFaults(control, endpoint, #"{"faults":[{"kind":"dropAfterCommit","rate":1,"operation":"applyEdits"}]}"#)
                let late = await Self.transportError(edit)
                #expect(late?.kind == .emptyReply, "\(String(describing: late))")
                #expect(try await Wire.count(control, service) == before + 1)
                let stats = try await Self.stats(control, endpoint)
                #expect(Self.faultCount(stats, "dropBeforeHandler") == 1 && Self.faultCount(stats, "dropAfterCommit") == 1, "\(stats)")
            }
        }
    }

    @Test("a truncated answer is a broken transfer; a stall outlasts the client's timeout", .timeLimit(.minutes(1)))
    func truncatedAndStalled() async throws {
        let rules = [
            FaultRule(kind: .truncatedResponse, rate: 1, scope: FaultScope(operation: "query")),
            FaultRule(kind: .stall, rate: 1, scope: FaultScope(path: "*/FeatureServer/1"), stallSeconds: 1.5),
        ]
        try await withConfiguredServer({ $0.faults = .init(rules: rules) }) { endpoint in
            let service = endpoint.serviceURL("parks")
            let truncated = await Self.transportError(HTTPRequest(url: service + "/0/query?where=1%3D1&outFields=*&f=json"))
            #expect(truncated?.kind == .receiveFailed, "\(String(describing: truncated))")
            let stalled = await Self.transportError(HTTPRequest(url: service + "/1?f=json"), timeout: .milliseconds(300))
            #expect(stalled?.kind == .timedOut, "\(String(describing: stalled))")
            try await withCurlTransport { transport in
                let stats = try await Self.stats(transport, endpoint)
                #expect(Self.faultCount(stats, "truncatedResponse") == 1 && Self.faultCount(stats, "stall") == 1, "\(stats)")
                let fine = try await transport.send(HTTPRequest(url: service + "/0?f=json"))
                #expect(WireJSON.error(in: fine.body) == nil)
            }
        }
    }

    @Test("a server that stops under a stall stops at once instead of waiting it out", .timeLimit(.minutes(1)))
    func stallEndsOnShutdown() async throws {
        let clock = ContinuousClock()
        // Both the stall and the grace period last 10 minutes, so only cutting the stall at graceful shutdown stops the
        // server before the test's time limit; 45 s is slack that only waiting either out could use up.
        let rules = [FaultRule(kind: .stall, rate: 1, scope: FaultScope(operation: "query"), stallSeconds: 600)]
        var stopping: ContinuousClock.Instant?
        stopping = try await withConfiguredServer({
            $0.faults = .init(rules: rules)
            $0.connections.shutdownGracePeriod = .seconds(600)
        }) { endpoint in
            await withTaskGroup(of: Void.self) { group in
                group.addTask { _ = await Self.transportError(HTTPRequest(url: endpoint.serviceURL("parks") + "/0/query?where=1%3D1&f=json")) }
                // Wait until the request has reached the stall (the server counts it; at most 30 s of 10 ms polls),
                // then give up on it: the server shuts down with the handler stalled.
                let reached =
                    (try? await withCurlTransport { control in
                        for _ in 0..<3_000 {
                            if Self.faultCount(try await Self.stats(control, endpoint), "stall") == 1 { return true }
                            try await Task.sleep(for: .milliseconds(10))
                        }
                        return false
                    }) ?? false
                #expect(reached, "the request never reached the stall")
                group.cancelAll()
            }
            return clock.now
        }
        let shutdown = try #require(stopping).duration(to: clock.now)
        #expect(shutdown < .seconds(45), "shutdown took \(shutdown)")
    }

    @Test("added latency delays matching answers and says so", .timeLimit(.minutes(1)))
    func latency() async throws {
        try await withConfiguredServer({ $0.faults = .init(latency: FaultLatency(.fixed(milliseconds: 150), scope: FaultScope(operation: "layer"))) })
        { endpoint in
            try await withCurlTransport { transport in
                let clock = ContinuousClock()
                var response: HTTPResponse?
                let elapsed = try await clock.measure {
                    response = try await transport.send(HTTPRequest(url: endpoint.serviceURL("parks") + "/0?f=json"))
                }
                #expect(elapsed >= .milliseconds(150))
                #expect(response?.header("X-Featureload-Fault") == "latency" && response.map { WireJSON.error(in: $0.body) == nil } == true)
                // Server-Timing counts the injected latency as the service's own time.
                let timing = try #require(response?.header("Server-Timing"))
                #expect(timing.hasPrefix("app;dur="))
                let milliseconds = try #require(Double(timing.dropFirst("app;dur=".count)))
                #expect(milliseconds >= 150 && milliseconds <= elapsed / .milliseconds(1))
                #expect(try await Self.stats(transport, endpoint)["delayedRequests"]?.intValue == 1)
            }
        }
    }

    @Test("a seeded run reproduces: the same settings fault the same requests, and each fault is logged", .timeLimit(.minutes(1)))
    func reproducible() async throws {
        let capture = LogCapture()
        try await withConfiguredServer(logger: capture.logger(), { _ in }) { endpoint in
            try await withCurlTransport { transport in
                let settings = #"{"seed":11,"faults":[{"kind":"http503","rate":0.3},{"kind":"arcgisError500","rate":0.2}]}"#
                func run() async throws -> [String] {
                    _ = try await Self.setFaults(transport, endpoint, settings)
                    var pattern: [String] = []
                    for _ in 0..<40 {
                        let response = try await transport.send(HTTPRequest(url: endpoint.serviceURL("parks") + "?f=json"))
                        pattern.append(response.header("X-Featureload-Fault") ?? "-")
                    }
                    return pattern
                }
                let first = try await run()
                #expect(first == (try await run()))
                #expect(first.contains("http503") && first.contains("arcgisError500") && first.contains("-"))
                let injected = first.filter { $0 != "-" }.count
                #expect(capture.text.components(separatedBy: "fault injected").count - 1 == 2 * injected)
            }
        }
    }

    @Test("the admin endpoint reports settings, rejects bad documents with every problem, accepts a form, resets counters", .timeLimit(.minutes(1)))
    func admin() async throws {
        try await withConfiguredServer({ $0.faults = .init(seed: 5, rules: [FaultRule(kind: .http429, rate: 0.1, retryAfterSeconds: 2)]) }) {
            endpoint in
            try await withCurlTransport { transport in
                let current = try await transport.send(HTTPRequest(url: Self.admin(endpoint) + "/faults?f=json"))
                let parsed = try LocalFeatureServerConfiguration.Faults(jsonForTest: Wire.text(current))
                #expect(parsed.seed == 5 && parsed.rules == [FaultRule(kind: .http429, rate: 0.1, retryAfterSeconds: 2)])

                let bad = try await Self.setFaults(
                    transport, endpoint, #"{"faults":[{"kind":"teapot","rate":1},{"kind":"http500","rate":-1}],"latency":{"distribution":"fixed"}}"#)
                let error = try #require(WireJSON.error(in: bad.body))
                #expect(error.code == 400 && error.details.count == 3, "\(error.details)")
                let form = try await transport.send(
                    HTTPRequest.form(
                        url: Self.admin(endpoint) + "/faults",
                        fields: [FormField("faults", #"{"seed":9,"latency":{"distribution":"uniform","minimum":0,"maximum":1}}"#)]))
                #expect(Wire.text(form).contains(#""success":true"#), "\(Wire.text(form))")
                #expect(Wire.text(try await transport.send(HTTPRequest(url: Self.admin(endpoint) + "/faults"))).contains(#""seed":9"#))

                _ = try await transport.send(HTTPRequest(url: endpoint.serviceURL("parks") + "?f=json"))
                #expect((try await Self.stats(transport, endpoint)["requests"]?.intValue ?? 0) >= 1)
                _ = try await transport.send(HTTPRequest(method: .post, url: Self.admin(endpoint) + "/stats/reset"))
                #expect(try await Self.stats(transport, endpoint)["requests"]?.intValue == 0)
                let unknown = try await transport.send(HTTPRequest(url: Self.admin(endpoint) + "/nothing"))
                #expect(WireJSON.error(in: unknown.body)?.code == 404)
            }
        }
    }
}

extension LocalFeatureServerConfiguration.Faults {
    /// Settings parsed from the admin document, through the file reader every client of `--faults` uses.
    init(jsonForTest text: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("faults.json")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        self = try LocalFeatureServerConfiguration.Faults(contentsOfFile: path)
    }
}
