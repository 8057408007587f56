import Synchronization

import class Foundation.Thread

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A bare TCP listener on 127.0.0.1 port 0 for transport tests that need odd peer behaviour.
///
/// In `.silent` mode it never accepts: the kernel completes connections into the backlog and requests sit there
/// unanswered (for timeouts and cancellation). In `.respond` mode each connection gets a thread
/// answering each HTTP/1.1 request with what `respond` returns, keeping the connection open.
final class LoopbackPeer: @unchecked Sendable {
    struct Request: Sendable {
        var head: String
        var body: [UInt8]
    }

    let port: Int
    private let listener: Int32
    private let stopped = Atomic<Bool>(false)
    private let served = Mutex<[Request]>([])
    private let connectionCount = Atomic<Int>(0)

    /// A listener that never accepts.
    init() throws {
        (listener, port) = try Self.makeListener()
    }

    /// A listener that answers requests; `respond` returns the full raw response bytes, or none to close the
    /// connection without answering.
    init(respond: @escaping @Sendable (Request) -> [UInt8]) throws {
        (listener, port) = try Self.makeListener()
        let thread = Thread { [self] in serve(respond) }
        thread.start()
    }

    /// A listener that answers one request per connection and then closes it, though its answers (from `respond`)
    /// do not say so: to the client, an idle keep-alive connection that the peer closed.
    init(closingAfterEachAnswer: Void, respond: @escaping @Sendable (Request) -> [UInt8]) throws {
        (listener, port) = try Self.makeListener()
        closesAfterAnswer.store(true, ordering: .relaxed)
        let thread = Thread { [self] in serve(respond) }
        thread.start()
    }

    private let closesAfterAnswer = Atomic<Bool>(false)

    /// A hostile listener: it answers every request with a chunked body that never ends (bounded at 8 GiB), until
    /// the client stops reading or closes. ``streamedBytes`` counts what it wrote.
    init(endlessBody: Void) throws {
        (listener, port) = try Self.makeListener()
        let thread = Thread { [self] in serve { _ in [] } }
        thread.start()
        endless.store(true, ordering: .relaxed)
    }

    private let endless = Atomic<Bool>(false)
    private let streamed = Atomic<Int>(0)
    /// Body bytes written by an endless-body peer.
    var streamedBytes: Int { streamed.load(ordering: .relaxed) }

    private func streamEndlessly(_ connection: Int32) {
        let head = Array("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        guard head.withUnsafeBytes({ write(connection, $0.baseAddress, $0.count) }) == head.count else { return }
        let chunk = Array("10000\r\n".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 65_536) + Array("\r\n".utf8)
        for _ in 0..<(1 << 17) {
            let written = chunk.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written == chunk.count else { return }
            streamed.add(65_536, ordering: .relaxed)
        }
    }

    deinit {
        stop()
    }

    /// Stops serving and closes the listening socket.
    func stop() {
        if !stopped.exchange(true, ordering: .sequentiallyConsistent) {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    /// The requests answered so far.
    var requests: [Request] { served.withLock { $0 } }
    /// Connections accepted so far.
    var connections: Int { connectionCount.load(ordering: .relaxed) }

    /// Accepts one pending connection within `timeout` (silent mode); returns its descriptor, or nil.
    ///
    /// Polls without blocking and sleeps between polls, so it never ties up a cooperative thread.
    func acceptPending(within timeout: Duration) async throws -> Int32? {
        let attempts = max(1, Int(timeout / .milliseconds(5)))
        for _ in 0..<attempts {
            var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, 0) == 1 {
                let connection = accept(listener, nil, nil)
                return connection >= 0 ? connection : nil
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }

    /// Whether the peer closed `connection` within `timeout` (reads return 0 or fail); data is discarded.
    static func waitForClose(_ connection: Int32, within timeout: Duration) async throws -> Bool {
        try await waitForReadable(connection, within: timeout, consume: true)
    }

    /// Waits until `connection` has data (or is closed) within `timeout`; with `consume`, reads until it closes.
    static func waitForReadable(_ connection: Int32, within timeout: Duration, consume: Bool = false) async throws -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let attempts = max(1, Int(timeout / .milliseconds(5)))
        for _ in 0..<attempts {
            var descriptor = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, 0) == 1 {
                guard consume else { return true }
                let count = buffer.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
                if count <= 0 { return true }
                continue
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    /// A free port: bound, then closed, so connecting to it is refused.
    static func closedPort() throws -> Int {
        let (socket, port) = try makeListener()
        close(socket)
        return port
    }

    private static func makeListener() throws -> (Int32, Int) {
        #if canImport(Glibc)
        let socket = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let socket = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard socket >= 0 else { throw PeerError(message: "socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) }
        }
        guard bound == 0, listen(socket, 128) == 0 else {
            close(socket)
            throw PeerError(message: "bind/listen failed")
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        return (socket, Int(UInt16(bigEndian: address.sin_port)))
    }

    private func serve(_ respond: @escaping @Sendable (Request) -> [UInt8]) {
        // Bounded: at most 1000 connections, each served on its own thread; stop() ends the loop sooner.
        var accepted = 0
        while accepted < 1000 {
            if stopped.load(ordering: .relaxed) { return }
            var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 100) == 1 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            accepted += 1
            connectionCount.add(1, ordering: .relaxed)
            let thread = Thread { [self] in
                handle(connection, respond)
                close(connection)
            }
            thread.start()
        }
    }

    private func handle(_ connection: Int32, _ respond: @Sendable (Request) -> [UInt8]) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        for _ in 0..<10_000 {
            // Read until a full head and body are buffered.
            var request: Request?
            for _ in 0..<10_000 {
                if let parsed = Self.parse(&pending) {
                    request = parsed
                    break
                }
                // An idle keep-alive connection is kept 30 s: on a loaded machine (the whole suite runs in parallel on
                // two cores) requests can be seconds apart, and a shorter limit would break keep-alive tests.
                var descriptor = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 30_000) == 1 else { return }
                let count = buffer.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
                guard count > 0 else { return }
                pending.append(contentsOf: buffer[0..<count])
            }
            guard let request else { return }
            served.withLock { $0.append(request) }
            if endless.load(ordering: .relaxed) {
                streamEndlessly(connection)
                return
            }
            let response = respond(request)
            // An empty response closes the connection without an answer.
            if response.isEmpty { return }
            let written = response.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            guard written == response.count, !closesAfterAnswer.load(ordering: .relaxed) else { return }
        }
    }

    private static func parse(_ pending: inout [UInt8]) -> Request? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard pending.count >= 4,
            let end = (0...(pending.count - 4)).first(where: { pending[$0..<($0 + 4)].elementsEqual(separator) })
        else { return nil }
        let head = String(decoding: pending[0..<end], as: UTF8.self)
        var length = 0
        for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
            length = Int(line.dropFirst("content-length:".count).trimmingPrefix(" ")) ?? 0
        }
        let bodyStart = end + 4
        guard pending.count >= bodyStart + length else { return nil }
        let request = Request(head: head, body: Array(pending[bodyStart..<(bodyStart + length)]))
        pending.removeFirst(bodyStart + length)
        return request
    }

    /// A raw HTTP/1.1 response.
    static func response(status: String = "200 OK", headers: [String] = [], body: [UInt8]) -> [UInt8] {
        let head = (["HTTP/1.1 \(status)", "Content-Length: \(body.count)"] + headers).joined(separator: "\r\n") + "\r\n\r\n"
        return Array(head.utf8) + body
    }
}

struct PeerError: Error {
    var message: String
}
