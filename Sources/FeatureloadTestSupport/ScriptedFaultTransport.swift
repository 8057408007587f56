import FeatureModel
package import FeatureServiceClient
import Synchronization

/// An ``HTTPTransport`` that wraps another and injects faults on chosen requests: for component and integration
/// tests of retries and exactly-once edits without server support.
///
/// Each request is passed to a decision function with its 0-based index among the requests seen so far; the
/// fault it returns is carried out. ``Fault/dropAfterSend`` and ``Fault/timeoutAfterSend`` forward the request to
/// the wrapped transport first (against a real server the edit is committed) and then report a failure, which is
/// exactly the ambiguity exactly-once edits must survive.
///
/// ```swift
/// let faulty = ScriptedFaultTransport(wrapping: transport) { index, request in
///     request.path.hasSuffix("/applyEdits") && index == 0 ? .dropAfterSend : .none
/// }
/// ```
package final class ScriptedFaultTransport: HTTPTransport {
    /// What happens to one request.
    package enum Fault: Sendable, Hashable {
        /// Forward the request unchanged.
        case none
        /// Answer this HTTP status with a plain-text body (and a `Retry-After` header when given) without forwarding.
        case status(Int, retryAfter: String? = nil)
        /// Answer HTTP 200 with an ArcGIS error body of this code without forwarding.
        case arcgisError(Int)
        /// Fail as a refused connection without forwarding (certainly not sent).
        case refuseConnection
        /// Forward the request, then fail as a connection dropped before the answer (the request was sent).
        case dropAfterSend
        /// Forward the request, then fail as a timeout after send.
        case timeoutAfterSend
    }

    /// Chooses the fault of a request from its index and content.
    package typealias Decision = @Sendable (_ index: Int, _ request: HTTPRequest) -> Fault

    private let inner: any HTTPTransport
    private let decide: Decision
    private let log = Mutex<(count: Int, faults: [Fault])>((0, []))

    /// A transport injecting the faults `decide` chooses into requests to `inner`.
    package init(wrapping inner: any HTTPTransport, decide: @escaping Decision) {
        self.inner = inner
        self.decide = decide
    }

    /// Faults at random (seeded): each request matching `matching` gets a 503 with probability `unavailable`,
    /// a 429 (with `Retry-After: 0`) with `throttled`, a dropped connection with `dropped` (half before send,
    /// half after), and passes otherwise.
    package static func random(
        wrapping inner: any HTTPTransport, seed: UInt64, unavailable: Double, throttled: Double, dropped: Double,
        matching: @escaping @Sendable (HTTPRequest) -> Bool
    ) -> ScriptedFaultTransport {
        let generator = Mutex(SplitMix64(seed: seed))
        return ScriptedFaultTransport(wrapping: inner) { _, request in
            guard matching(request) else { return .none }
            let draw = generator.withLock { $0.nextUnit() }
            if draw < unavailable { return .status(503) }
            if draw < unavailable + throttled { return .status(429, retryAfter: "0") }
            if draw < unavailable + throttled + dropped / 2 { return .refuseConnection }
            if draw < unavailable + throttled + dropped { return .dropAfterSend }
            return .none
        }
    }

    package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let index = log.withLock { log -> Int in
            log.count += 1
            return log.count - 1
        }
        let fault = decide(index, request)
        if fault != .none { log.withLock { $0.faults.append(fault) } }
        switch fault {
        case .none:
            return try await inner.send(request)
        case .status(let status, let retryAfter):
            var headers = [HTTPHeader("Content-Type", "text/plain")]
            if let retryAfter { headers.append(HTTPHeader("Retry-After", retryAfter)) }
            return HTTPResponse(status: status, headers: headers, body: Array("injected \(status)".utf8))
        case .arcgisError(let code):
            let body = #"{"error":{"code":\#(code),"message":"Injected error.","details":[]}}"#
            return HTTPResponse(status: 200, headers: [HTTPHeader("Content-Type", "application/json")], body: Array(body.utf8))
        case .refuseConnection:
            throw TransportError(.couldNotConnect, url: request.url, message: "injected", mayHaveBeenSent: false)
        case .dropAfterSend:
            _ = try await inner.send(request)
            throw TransportError(.receiveFailed, url: request.url, message: "injected", mayHaveBeenSent: true)
        case .timeoutAfterSend:
            _ = try await inner.send(request)
            throw TransportError(.timedOut, url: request.url, message: "injected", mayHaveBeenSent: true)
        }
    }

    /// The faults injected so far, in order.
    package var injectedFaults: [Fault] { log.withLock { $0.faults } }

    /// The requests seen so far.
    package var requestCount: Int { log.withLock { $0.count } }
}
