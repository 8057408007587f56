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

    public var taskExecutor: (any TaskExecutor)? { inner.taskExecutor }

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

    /// The longest `dur=` of the `Server-Timing` headers, in milliseconds (W3C Server Timing), e.g. `app;dur=12.5`.
    ///
    /// Metrics are separated by commas, parameters by semicolons; a proxy may add its own metrics, so the largest
    /// duration (the outermost span) is the service's. Values that are not finite or past an hour are ignored.
    /// Parsed on the UTF-8 bytes: it runs once per response, in the generator's hot path.
    static func serverDuration(_ headers: [HTTPHeader]) -> Duration? {
        var longest: Double?
        for header in headers where header.name.utf8.count == 13 && Self.equalsIgnoringCase(header.name.utf8, "server-timing") {
            let value = Array(header.value.utf8)
            for metric in value.split(separator: UInt8(ascii: ",")) {
                for parameter in metric.split(separator: UInt8(ascii: ";")).dropFirst() {
                    guard let equals = parameter.firstIndex(of: UInt8(ascii: "=")) else { continue }
                    let name = Self.trimmed(parameter[..<equals], also: 0)
                    guard name.count == 3, Self.equalsIgnoringCase(name, "dur") else { continue }
                    let text = Self.trimmed(parameter[(equals + 1)...], also: UInt8(ascii: "\""))
                    guard let milliseconds = Double(String(decoding: text, as: UTF8.self)), milliseconds.isFinite,
                        milliseconds >= 0, milliseconds < 3_600_000
                    else { continue }
                    longest = max(longest ?? 0, milliseconds)
                }
            }
        }
        return longest.map { .microseconds(Int64(($0 * 1000).rounded())) }
    }

    /// `bytes` without leading and trailing spaces and tabs (and `extra`, when not 0).
    private static func trimmed(_ bytes: ArraySlice<UInt8>, also extra: UInt8) -> ArraySlice<UInt8> {
        func strip(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || (extra != 0 && byte == extra) }
        var slice = bytes
        while let first = slice.first, strip(first) { slice = slice.dropFirst() }
        while let last = slice.last, strip(last) { slice = slice.dropLast() }
        return slice
    }

    /// Whether ASCII `bytes` equal the lowercase ASCII `lowercase`, ignoring case.
    private static func equalsIgnoringCase<S: Sequence<UInt8>>(_ bytes: S, _ lowercase: StaticString) -> Bool {
        var index = 0
        let count = lowercase.utf8CodeUnitCount
        for byte in bytes {
            guard index < count else { return false }
            let folded = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            guard folded == lowercase.utf8Start[index] else { return false }
            index += 1
        }
        return index == count
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
