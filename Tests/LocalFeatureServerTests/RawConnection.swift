import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to 127.0.0.1 for the tests that must misbehave at the byte level (idle sockets, headers
/// a byte at a time, bodies written past a limit, malformed chunks), which no HTTP client library will send.
///
/// Its calls block, so each runs on a dispatch queue, never on the cooperative pool.
final class RawConnection: @unchecked Sendable {
    private let descriptor: Int32
    private let queue = DispatchQueue(label: "featureload.test.raw-connection")

    /// Connects to 127.0.0.1:`port`.
    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ECONNREFUSED)
        }
    }

    deinit { close(descriptor) }

    /// Sends `bytes`; false when the connection refused them (closed or reset).
    @discardableResult
    func send(_ bytes: [UInt8]) async -> Bool {
        await run {
            var offset = 0
            while offset < bytes.count {
                let sent = bytes[offset...].withUnsafeBytes { Glibc.send(self.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }

    /// Sends `text` a byte at a time, `interval` apart; the number of bytes sent before the connection refused more.
    func trickle(_ text: String, interval: Duration) async -> Int {
        var sent = 0
        for byte in Array(text.utf8) {
            guard await send([byte]) else { return sent }
            sent += 1
            try? await Task.sleep(for: interval)
        }
        return sent
    }

    /// Sends `request` and reads one whole response (head and `Content-Length` body); empty when none came within
    /// `timeout`. The connection stays open.
    func exchange(_ request: String, timeout: Duration) async -> [UInt8] {
        guard await send(Array(request.utf8)) else { return [] }
        let deadline = ContinuousClock.now + timeout
        return await run {
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while ContinuousClock.now < deadline {
                let text = String(decoding: received, as: UTF8.self)
                if let end = text.range(of: "\r\n\r\n") {
                    let head = text[..<end.lowerBound].lowercased()
                    let length =
                        head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                        .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                    if text.utf8.count - text[..<end.upperBound].utf8.count >= length { return received }
                }
                var poller = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 100) > 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { recv(self.descriptor, $0.baseAddress, $0.count, 0) }
                if count <= 0 { return received }
                received += buffer[0..<count]
            }
            return []
        }
    }

    /// Everything the peer sends until it closes the connection or `timeout` passes.
    /// - Returns: The bytes read, and whether the peer closed (false: the time ran out first).
    func readUntilClosed(timeout: Duration) async -> (bytes: [UInt8], closed: Bool) {
        let deadline = ContinuousClock.now + timeout
        return await run {
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while ContinuousClock.now < deadline {
                var poller = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
                let wait = Int32(max(1, min(200, (deadline - ContinuousClock.now).components.seconds * 1000 + 1)))
                guard poll(&poller, 1, wait) > 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { recv(self.descriptor, $0.baseAddress, $0.count, 0) }
                if count <= 0 { return (received, true) }
                received += buffer[0..<count]
            }
            return (received, false)
        }
    }

    private func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }
}
