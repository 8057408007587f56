public import FeatureServiceClient
import Foundation
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
        // Metrics are separated by commas, parameters by semicolons; a proxy may add its own metrics, so the largest
        // duration (the outermost span) is the service's. Values that are not finite or past an hour are ignored.
        var longest: Double?
        for header in headers where header.name.count == 13 && header.name.lowercased() == "server-timing" {
            for metric in header.value.split(separator: ",") {
                for parameter in metric.split(separator: ";").dropFirst() {
                    let parts = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                    guard parts.count == 2, parts[0].lowercased() == "dur" else { continue }
                    let text = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                    guard let milliseconds = Double(text), milliseconds.isFinite, milliseconds >= 0, milliseconds < 3_600_000 else { continue }
                    longest = max(longest ?? 0, milliseconds)
                }
            }
        }
        return longest.map { .microseconds(Int64(($0 * 1000).rounded())) }
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
