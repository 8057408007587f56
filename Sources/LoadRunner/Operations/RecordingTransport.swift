public import FeatureServiceClient
import Synchronization

/// The HTTP requests of the iteration running in the current task: the transport appends, the VU drains.
public final class RequestLog: Sendable {
    private let samples = Mutex<[RequestSample]>([])

    public init() {}

    @TaskLocal public static var current: RequestLog?

    func append(_ sample: RequestSample) {
        samples.withLock { $0.append(sample) }
    }

    /// The requests recorded since the last drain.
    public func drain() -> [RequestSample] {
        samples.withLock { samples in
            defer { samples.removeAll(keepingCapacity: true) }
            return samples
        }
    }
}

/// A transport that records every request made under a ``RequestLog`` (status, libcurl's total time, bytes),
/// so operations can use the ordinary client API and still have each HTTP request measured, retries and pages
/// included.
public struct RecordingTransport: HTTPTransport {
    public let inner: any HTTPTransport
    private let clock = ContinuousClock()

    public init(_ inner: any HTTPTransport) {
        self.inner = inner
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let log = RequestLog.current else { return try await inner.send(request) }
        let start = clock.now
        do {
            let response = try await inner.send(request)
            let duration = response.timing?.total ?? start.duration(to: clock.now)
            let failed = response.status >= 400 || Self.isErrorEnvelope(response.body)
            log.append(
                RequestSample(
                    status: response.status, duration: duration, bytesSent: response.timing?.bytesSent ?? Int64(request.body.bytes?.count ?? 0),
                    bytesReceived: response.timing?.bytesReceived ?? Int64(response.body.count), failed: failed,
                    serverDuration: Self.serverDuration(response.headers)))
            return response
        } catch {
            if !Task.isCancelled {
                log.append(RequestSample(status: 0, duration: start.duration(to: clock.now), failed: true))
            }
            throw error
        }
    }

    /// The first `dur=` of a `Server-Timing` header, in milliseconds (W3C Server Timing), e.g. `app;dur=12.5`.
    static func serverDuration(_ headers: [HTTPHeader]) -> Duration? {
        for header in headers where header.name.count == 13 && header.name.lowercased() == "server-timing" {
            for parameter in header.value.split(whereSeparator: { $0 == ";" || $0 == "," }) {
                let trimmed = parameter.drop { $0 == " " }
                guard trimmed.hasPrefix("dur="), let milliseconds = Double(trimmed.dropFirst(4)), milliseconds >= 0 else { continue }
                return .microseconds(Int64((milliseconds * 1000).rounded()))
            }
        }
        return nil
    }

    /// Whether a body is an ArcGIS error envelope (`{"error":…}` at HTTP 200), judged by its first key.
    static func isErrorEnvelope(_ body: [UInt8]) -> Bool {
        var index = 0
        while index < body.count, body[index] == 0x20 || body[index] == 0x0A || body[index] == 0x0D || body[index] == 0x09 { index += 1 }
        let prefix = Array(#"{"error""#.utf8)
        guard body.count - index >= prefix.count else { return false }
        return Array(body[index..<(index + prefix.count)]) == prefix
    }
}
