import FeatureModel
import FeatureServiceClient
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// CurlTransport against bare loopback sockets (no feature server needed).
@Suite struct CurlTransportTests {
    @Test("a closed port on 127.0.0.1 fails as couldNotConnect, certainly unsent", .timeLimit(.minutes(1)))
    func connectionRefused() async throws {
        let port = try LoopbackPeer.closedPort()
        try await withCurlTransport { transport in
            let error = try await #require(throws: TransportError.self) {
                try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(port)/arcgis/rest/services?token=SECRET"))
            }
            #expect(error.kind == .couldNotConnect)
            #expect(error.isConnectionFailure)
            #expect(!error.mayHaveBeenSent)
            #expect(error.curlCode == 7)
            #expect(error.url == "http://127.0.0.1:\(port)/arcgis/rest/services")
            #expect(!error.description.contains("SECRET"))
        }
    }

    @Test("a peer that never answers times out after the request timeout", .timeLimit(.minutes(1)))
    func timeout() async throws {
        let peer = try LoopbackPeer()
        defer { peer.stop() }  // also keeps the listener open until the test ends
        try await withCurlTransport { transport in
            let clock = ContinuousClock()
            let started = clock.now
            let error = try await #require(throws: TransportError.self) {
                try await transport.send(.form(url: "http://127.0.0.1:\(peer.port)/q", fields: [.init("f", "json")], timeout: .milliseconds(300)))
            }
            let elapsed = clock.now - started
            #expect(error.kind == .timedOut)
            #expect(error.isTimeout)
            #expect(error.mayHaveBeenSent, "the request went into the peer's socket buffer")
            // Well under libcurl's 60 s default, whatever else loads the machine: the 300 ms were applied.
            #expect(elapsed >= .milliseconds(250) && elapsed < .seconds(30))
        }
    }

    @Test("cancelling an in-flight request throws CancellationError and closes its connection", .timeLimit(.minutes(1)))
    func cancellation() async throws {
        let peer = try LoopbackPeer()
        defer { peer.stop() }  // also keeps the listener open until the test ends
        try await withCurlTransport { transport in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    await #expect(throws: CancellationError.self) {
                        _ = try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(peer.port)/slow"))
                    }
                }
                // The request is in flight once its connection shows up at the listener.
                let connection = try #require(try await peer.acceptPending(within: .seconds(10)))
                defer { close(connection) }
                group.cancelAll()
                try await group.waitForAll()
                let closed = try await LoopbackPeer.waitForClose(connection, within: .seconds(5))
                #expect(closed, "curl should drop the cancelled transfer's connection")
            }
            // The transport still works afterwards. Port 1: a port closed a moment ago may be another suite's server by
            // the time curl connects; no test server binds a privileged port.
            let error = try await #require(throws: TransportError.self) {
                try await transport.send(HTTPRequest(url: "http://127.0.0.1:1/"))
            }
            #expect(error.kind == .couldNotConnect)
        }
    }

    @Test("a task cancelled before sending never reaches the network", .timeLimit(.minutes(1)))
    func cancelledBeforeSend() async throws {
        let peer = try LoopbackPeer()
        defer { peer.stop() }  // also keeps the listener open until the test ends
        try await withCurlTransport { transport in
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    withUnsafeCurrentTask { $0?.cancel() }
                    await #expect(throws: CancellationError.self) {
                        try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(peer.port)/"))
                    }
                }
            }
            let connection = try await peer.acceptPending(within: .milliseconds(200))
            #expect(connection == nil)
        }
    }

    @Test("shutdown fails outstanding requests and later sends", .timeLimit(.minutes(1)))
    func shutdownFailsOutstanding() async throws {
        let peer = try LoopbackPeer()
        defer { peer.stop() }  // also keeps the listener open until the test ends
        let transport = try CurlTransport()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let error = try await #require(throws: TransportError.self) {
                    try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(peer.port)/slow"))
                }
                #expect(error.kind == .shutdown)
                #expect(error.mayHaveBeenSent)
            }
            let connection = try #require(try await peer.acceptPending(within: .seconds(10)))
            defer { close(connection) }
            await transport.shutdown()
            try await group.waitForAll()
        }
        let error = try await #require(throws: TransportError.self) { try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(peer.port)/")) }
        #expect(error.kind == .shutdown)
        #expect(!error.mayHaveBeenSent)
        await transport.shutdown()  // idempotent
    }

    @Test("headers with line breaks are refused before sending", .timeLimit(.minutes(1)))
    func headerInjection() async throws {
        try await withCurlTransport { transport in
            let error = try await #require(throws: TransportError.self) {
                try await transport.send(HTTPRequest(url: "http://127.0.0.1:1/", headers: [HTTPHeader("X-Token", "a\r\nHost: evil")]))
            }
            #expect(error.kind == .invalidRequest)
            #expect(!error.mayHaveBeenSent)
        }
    }

    @Test(
        "a malformed URL or another scheme is an invalid request", .timeLimit(.minutes(1)),
        arguments: ["not a url", "file:///etc/passwd", "ftp://127.0.0.1/"])
    func invalidURL(url: String) async throws {
        try await withCurlTransport { transport in
            let error = try await #require(throws: TransportError.self) { try await transport.send(HTTPRequest(url: url)) }
            #expect(error.kind == .invalidRequest, "\(error)")
        }
    }

    @Test("POST bodies arrive byte for byte, with headers, and responses keep theirs", .timeLimit(.minutes(1)), arguments: [0, 4096, 100_000])
    func postRoundTrip(size: Int) async throws {
        let peer = try LoopbackPeer { request in
            LoopbackPeer.response(headers: ["Content-Type: application/octet-stream", "X-Echo:  padded  "], body: request.body)
        }
        defer { peer.stop() }
        var body = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        if size > 10 { body[10] = 0 }
        try await withCurlTransport { transport in
            let response = try await transport.send(
                HTTPRequest(
                    method: .post, url: "http://127.0.0.1:\(peer.port)/echo", headers: [HTTPHeader("X-Test", "1"), HTTPHeader("X-Empty", "")],
                    body: body))
            #expect(response.status == 200)
            #expect(response.body == body)
            #expect(response.header("x-echo") == "padded")
            #expect(response.header("content-type") == "application/octet-stream")
            let timing = try #require(response.timing)
            #expect(timing.total > .zero)
            #expect(timing.total >= timing.startTransfer)
            #expect(timing.newConnections == 1)
            // The head is a few hundred bytes; the body is counted once.
            #expect(timing.bytesSent > Int64(body.count) + 100 && timing.bytesSent < Int64(body.count) + 1000)
            #expect(timing.bytesReceived > Int64(body.count) + 50 && timing.bytesReceived < Int64(body.count) + 1000)

            let head = try #require(peer.requests.first?.head)
            #expect(head.hasPrefix("POST /echo HTTP/1.1"))
            #expect(head.contains("X-Test: 1"))
            #expect(head.contains("X-Empty:"))
            #expect(head.contains("User-Agent: featureload"))
            #expect(!head.lowercased().contains("expect:"), "no 100-continue for large bodies")
        }
    }

    @Test(
        "a POST whose reused connection closes after the request went out fails as maybe sent, and is not sent again",
        .timeLimit(.minutes(1)), arguments: [100, 200_000])
    func deadReusedConnection(size: Int) async throws {
        // The peer answers a request whose body starts with "a"; on reading one that starts with "b" it closes the
        // connection without an answer, as a service that dies after committing would.
        let peer = try LoopbackPeer { request in
            request.body.first == UInt8(ascii: "a") ? LoopbackPeer.response(body: Array("{}".utf8)) : []
        }
        defer { peer.stop() }
        try await withCurlTransport { transport in
            let url = "http://127.0.0.1:\(peer.port)/applyEdits"
            let first = try await transport.send(HTTPRequest(method: .post, url: url, body: [UInt8](repeating: UInt8(ascii: "a"), count: size)))
            #expect(first.status == 200)
            #expect(peer.connections == 1)
            // Sent on the same keep-alive connection, which then closes.
            let error = try await #require(throws: TransportError.self) {
                try await transport.send(HTTPRequest(method: .post, url: url, body: [UInt8](repeating: UInt8(ascii: "b"), count: size)))
            }
            #expect(error.mayHaveBeenSent, "\(error)")
            // A small body libcurl could send again is stopped by the one-issue guard; a streamed one cannot be rewound.
            #expect(error.curlCode == (size <= 32_768 ? 42 : 65), "\(error)")
            let received = peer.requests.filter { $0.body.first == UInt8(ascii: "b") }.count
            #expect(received == 1, "the request reached the peer once, not again on a new connection")
        }
    }

    @Test(
        "a GET after POSTs on the same handle is sent again when its reused connection dies: the POSTs' once-only guard does not carry over",
        .timeLimit(.minutes(1)))
    func getAfterPostMayBeSentAgain() async throws {
        // The peer closes the connection without an answer on the first GET it reads and on a POST of "i=drop", and
        // answers everything else.
        let dropped = Mutex(false)
        let peer = try LoopbackPeer { request in
            let firstGet =
                request.head.hasPrefix("GET")
                && dropped.withLock { done in
                    defer { done = true }
                    return !done
                }
            return firstGet || request.body == Array("i=drop".utf8) ? [] : LoopbackPeer.response(body: Array("{}".utf8))
        }
        defer { peer.stop() }
        // One connection and one handle: the GET reuses what the POSTs set up.
        try await withCurlTransport(configuration: CurlTransportConfiguration(maxConnections: 1)) { transport in
            let url = "http://127.0.0.1:\(peer.port)/service"
            for index in 0..<3 {
                let post = try await transport.send(.form(url: url + "/applyEdits", fields: [.init("i", String(index))]))
                #expect(post.status == 200)
            }
            let get = try await transport.send(HTTPRequest(url: url + "?f=json"))
            #expect(get.status == 200)
            #expect(peer.requests.filter { $0.head.hasPrefix("GET") }.count == 2, "sent, dropped, sent again")
            // And a POST after the GET is guarded again: dropped on its reused connection, it is not sent again.
            let error = try await #require(throws: TransportError.self) {
                try await transport.send(.form(url: url + "/applyEdits", fields: [.init("i", "drop")]))
            }
            #expect(error.mayHaveBeenSent && error.curlCode == 42, "\(error)")
            #expect(peer.requests.filter { $0.body == Array("i=drop".utf8) }.count == 1)
        }
    }

    @Test("sequential requests reuse one keep-alive connection", .timeLimit(.minutes(1)))
    func keepAlive() async throws {
        let peer = try LoopbackPeer { _ in LoopbackPeer.response(body: Array(#"{"count":1}"#.utf8)) }
        defer { peer.stop() }
        try await withCurlTransport { transport in
            for index in 0..<20 {
                let response = try await transport.send(.form(url: "http://127.0.0.1:\(peer.port)/q", fields: [.init("i", String(index))]))
                #expect(response.status == 200)
                #expect(response.timing?.newConnections == (index == 0 ? 1 : 0))
            }
            #expect(transport.statistics.connectionsOpened == 1)
            #expect(transport.statistics.transfersCompleted == 20)
        }
        #expect(peer.connections == 1)
        #expect(peer.requests.map { String(decoding: $0.body, as: UTF8.self) } == (0..<20).map { "i=\($0)" })
    }

    @Test("1xx interim responses are skipped and non-2xx statuses are returned, not thrown", .timeLimit(.minutes(1)))
    func statuses() async throws {
        let peer = try LoopbackPeer { request in
            Array("HTTP/1.1 100 Continue\r\nX-Interim: 1\r\n\r\n".utf8)
                + LoopbackPeer.response(status: "503 Service Unavailable", headers: ["Retry-After: 2"], body: Array("busy".utf8))
        }
        defer { peer.stop() }
        try await withCurlTransport { transport in
            let response = try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(peer.port)/"))
            #expect(response.status == 503)
            #expect(response.header("Retry-After") == "2")
            #expect(response.header("X-Interim") == nil)
            #expect(response.body == Array("busy".utf8))
        }
    }

    @Test("a connection closed without an answer is an empty reply that may have been sent", .timeLimit(.minutes(1)))
    func emptyReply() async throws {
        let peer = try LoopbackPeer()
        defer { peer.stop() }  // also keeps the listener open until the test ends
        try await withCurlTransport { transport in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    let error = try await #require(throws: TransportError.self) {
                        try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(peer.port)/"))
                    }
                    #expect(error.kind == .emptyReply || error.kind == .receiveFailed, "\(error)")
                    #expect(error.mayHaveBeenSent)
                }
                let connection = try #require(try await peer.acceptPending(within: .seconds(10)))
                // Wait for the request to arrive, then hang up.
                _ = try await LoopbackPeer.waitForReadable(connection, within: .seconds(5))
                close(connection)
                try await group.waitForAll()
            }
        }
    }

    @Test("many concurrent requests complete over at most maxConnections connections", .timeLimit(.minutes(1)))
    func concurrencyLimit() async throws {
        let peer = try LoopbackPeer { _ in LoopbackPeer.response(body: Array("ok".utf8)) }
        defer { peer.stop() }
        // With one connection allowed, libcurl queues the other requests until it is free.
        try await withCurlTransport(configuration: CurlTransportConfiguration(maxConnections: 1)) { transport in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(peer.port)/")).status }
                }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                #expect(statuses == Array(repeating: 200, count: 50))
            }
            #expect(transport.statistics.connectionsOpened == 1)
        }
    }
}
