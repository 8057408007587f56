import FeatureServiceClient
import Synchronization

/// The HTTP requests of the iteration running in the current task: the transport appends, the VU drains.
package final class RequestLog: Sendable {
    private let samples = Mutex<[RequestSample]>([])

    package init() {}

    @TaskLocal package static var current: RequestLog?

    func append(_ sample: RequestSample) {
        samples.withLock { $0.append(sample) }
    }

    /// The requests recorded since the last drain.
    package func drain() -> [RequestSample] {
        samples.withLock { samples in
            defer { samples.removeAll(keepingCapacity: true) }
            return samples
        }
    }
}

/// A transport that records every request made under a ``RequestLog`` (status, libcurl's total time, bytes),
/// so operations can use the ordinary client API and still have each HTTP request measured, retries and pages
/// included.
struct RecordingTransport: HTTPTransport {
    package let inner: any HTTPTransport
    private let clock = ContinuousClock()

    package init(_ inner: any HTTPTransport) {
        self.inner = inner
    }

    package var taskExecutor: (any TaskExecutor)? { inner.taskExecutor }

    package nonisolated(nonsending) func send(_ request: HTTPRequest) async throws -> HTTPResponse {
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
                    serverDuration: Self.serverDuration(response.headers), started: start))
            return response
        } catch {
            // Cancelled while waiting: the scenario's end cut the request off. It stays a result (failed, its wait as a
            // lower bound of its duration), or a stalled service would vanish from the figures.
            let status = Task.isCancelled ? RequestSample.interrupted : 0
            log.append(
                RequestSample(
                    status: status, duration: start.duration(to: clock.now), bytesSent: request.body.contentLength, failed: true, started: start))
            throw error
        }
    }

    /// The longest `dur=` of the `Server-Timing` headers, in milliseconds (W3C Server Timing), e.g. `app;dur=12.5`.
    ///
    /// Metrics are separated by commas, parameters by semicolons; a proxy may add its own metrics, so the largest
    /// duration (the outermost span) is the service's. Values that are not finite or past an hour are ignored.
    /// Parsed on the header's UTF-8 bytes in place: it runs once per response, in the generator's hot path.
    static func serverDuration(_ headers: [HTTPHeader]) -> Duration? {
        var longest: Double?
        for header in headers where header.name.utf8.count == 13 && Self.equalsIgnoringCase(header.name.utf8, "server-timing") {
            var value = header.value
            value.withUTF8 { bytes in
                Self.forEachMetric(in: bytes) { parameter in
                    guard let milliseconds = Self.duration(parameter) else { return }
                    longest = max(longest ?? 0, milliseconds)
                }
            }
        }
        return longest.map { .microseconds(Int64(($0 * 1000).rounded())) }
    }

    /// Calls `body` with each parameter of each metric in a `Server-Timing` value: the non-empty pieces between
    /// semicolons after the first (the metric's name), of each non-empty piece between commas.
    private static func forEachMetric(in bytes: UnsafeBufferPointer<UInt8>, _ body: (Slice<UnsafeBufferPointer<UInt8>>) -> Void) {
        var metricStart = 0
        while metricStart < bytes.count {
            var metricEnd = metricStart
            while metricEnd < bytes.count && bytes[metricEnd] != UInt8(ascii: ",") { metricEnd += 1 }
            var pieceStart = metricStart
            var named = false
            while pieceStart < metricEnd {
                var pieceEnd = pieceStart
                while pieceEnd < metricEnd && bytes[pieceEnd] != UInt8(ascii: ";") { pieceEnd += 1 }
                if pieceEnd > pieceStart {
                    if named { body(bytes[pieceStart..<pieceEnd]) } else { named = true }
                }
                pieceStart = pieceEnd + 1
            }
            metricStart = metricEnd + 1
        }
    }

    /// The milliseconds of a `dur=` parameter, or nil for any other parameter or a value that is not a finite
    /// duration under an hour.
    private static func duration(_ parameter: Slice<UnsafeBufferPointer<UInt8>>) -> Double? {
        guard let equals = parameter.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        let name = Self.trimmed(parameter[..<equals], also: 0)
        guard name.count == 3, Self.equalsIgnoringCase(name, "dur") else { return nil }
        let text = Self.trimmed(parameter[(equals + 1)...], also: UInt8(ascii: "\""))
        guard let milliseconds = Self.decimal(text) ?? Double(String(decoding: text, as: UTF8.self)), milliseconds.isFinite,
            milliseconds >= 0, milliseconds < 3_600_000
        else { return nil }
        return milliseconds
    }

    /// `digits[.digits]` of at most 15 digits, exactly as `Double(_:)` reads it (both numbers the division takes are
    /// exact, and the division rounds once); nil for anything else, which `Double(_:)` then reads.
    private static func decimal(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> Double? {
        var digits: Int64 = 0
        var count = 0
        var fractionDigits: Int?
        for byte in text {
            if byte == UInt8(ascii: "."), fractionDigits == nil, count > 0 {
                fractionDigits = 0
                continue
            }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), count < 15 else { return nil }
            digits = digits * 10 + Int64(byte - UInt8(ascii: "0"))
            count += 1
            if let fraction = fractionDigits { fractionDigits = fraction + 1 }
        }
        guard count > 0, fractionDigits != 0 else { return nil }
        var scale = 1.0
        for _ in 0..<(fractionDigits ?? 0) { scale *= 10 }
        return Double(digits) / scale
    }

    /// `bytes` without leading and trailing spaces and tabs (and `extra`, when not 0).
    private static func trimmed(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, also extra: UInt8) -> Slice<UnsafeBufferPointer<UInt8>> {
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
        let prefix: StaticString = #"{"error""#
        let count = prefix.utf8CodeUnitCount
        guard body.count - index >= count else { return false }
        for offset in 0..<count where body[index + offset] != prefix.utf8Start[offset] { return false }
        return true
    }
}
