import FeatureModel

/// The request–response rules every operation shares: authorize, send, check for an ArcGIS error body, check the
/// status, decode; on 498 refresh the token once and replay; with a ``RetryPolicy``, retry what the policy allows.
/// Stateless; used by ``FeatureLayerClient``, ``FeatureService`` and ``GeneratedTokenProvider``.
struct FeatureServiceExchange: Sendable {
    let transport: any HTTPTransport
    let authentication: TokenAuthentication?
    /// Starts timing one operation on the injected clock.
    let startClock: @Sendable () -> AttemptClock

    init(transport: any HTTPTransport, authentication: TokenAuthentication? = nil, clock: some Clock<Duration> = ContinuousClock()) {
        self.transport = transport
        self.authentication = authentication
        self.startClock = { AttemptClock(clock) }
    }

    /// Sends `request` once (plus one replay after a token refresh) and decodes the answer as `T`.
    /// - Throws: ``FeatureServiceError`` for every failure, with its attempts; `CancellationError` when the task
    ///   was cancelled.
    nonisolated(nonsending) func perform<T: Decodable>(_ request: HTTPRequest, operation: String, as type: T.Type) async throws -> T {
        var log = AttemptLog(clock: startClock())
        do {
            let response = try await send(request, operation: operation, purpose: .request, log: &log)
            return try Self.decode(response, as: type, operation: operation, url: request.url)
        } catch var error as FeatureServiceError {
            error.attempts = log.attempts
            throw error
        }
    }

    /// Sends `request`, retrying as `policy` allows, and decodes the answer as `T`; for idempotent operations
    /// (queries, metadata). Every attempt is returned, or attached to the thrown error.
    /// - Throws: ``FeatureServiceError`` with ``FeatureServiceError/attempts`` and ``FeatureServiceError/stopReason``;
    ///   `CancellationError` when the task was cancelled (also during a backoff sleep).
    func perform<T: Decodable>(
        _ request: HTTPRequest, operation: String, as type: T.Type, retry policy: RetryPolicy
    ) async throws -> (value: T, attempts: [Attempt]) {
        var log = AttemptLog(clock: startClock())
        var jitter = policy.makeGenerator()
        return try await RetryDriver.run {
            let response = try await send(request, operation: operation, purpose: .request, log: &log)
            return (try Self.decode(response, as: type, operation: operation, url: request.url), log.attempts)
        } decide: { error, _ in
            error.attempts = log.attempts
            error.stopReason = nil
            return log.decide(after: error, policy: policy, using: &jitter).step(annotating: &error)
        } sleep: { delay in
            try await log.sleep(delay)
        }
    }

    /// One logical exchange: authorize, send, and on a 498 refresh the token once and replay. Records every
    /// exchange in `log`; returns only a response that is neither an error body nor a non-2xx status.
    /// - Throws: ``FeatureServiceError`` (its ``FeatureServiceError/response`` set when a response arrived);
    ///   `CancellationError`.
    nonisolated(nonsending) func send(
        _ request: HTTPRequest, operation: String, purpose: Attempt.Purpose, log: inout AttemptLog
    ) async throws -> HTTPResponse {
        guard let authentication else {
            return try await sendOnce(request, operation: operation, purpose: purpose, log: &log)
        }
        let token = try await authentication.provider.token()
        do {
            return try await sendOnce(authentication.authorize(request, with: token), operation: operation, purpose: purpose, log: &log)
        } catch let error as FeatureServiceError where error.isInvalidToken {
            guard let fresh = try await authentication.provider.refreshToken(replacing: token) else { throw error }
            log.markTokenRefreshed()
            do {
                return try await sendOnce(authentication.authorize(request, with: fresh), operation: operation, purpose: purpose, log: &log)
            } catch let error as FeatureServiceError where error.isInvalidToken {
                throw FeatureServiceError.authentication(
                    "the service refused a freshly generated token (498) too", operation: operation, url: request.url)
            }
        }
    }

    private nonisolated(nonsending) func sendOnce(
        _ request: HTTPRequest, operation: String, purpose: Attempt.Purpose, log: inout AttemptLog
    ) async throws -> HTTPResponse {
        let started = log.clock.elapsed()
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch let error as TransportError {
            let failure = FeatureServiceError.transport(error, operation: operation, url: request.url)
            log.record(purpose: purpose, startedAt: started, response: nil, failure: failure.attemptFailure)
            throw failure
        }
        var failure: FeatureServiceError?
        // ArcGIS puts errors in the body, usually under HTTP 200; the body explains more than the status does.
        if let error = WireJSON.error(in: response.body) {
            failure = FeatureServiceError.arcgis(error, httpStatus: response.status, operation: operation, url: request.url)
        } else if !(200..<300).contains(response.status) {
            failure = FeatureServiceError.httpStatus(
                response.status, contentType: response.header("Content-Type"), operation: operation, url: request.url)
        }
        log.record(purpose: purpose, startedAt: started, response: response, failure: failure?.attemptFailure)
        guard var failure else { return response }
        failure.response = .init(
            status: response.status, retryAfter: response.header("Retry-After"), date: response.header("Date"),
            timing: response.timing)
        throw failure
    }

    /// Decodes a checked response as `T`.
    /// - Throws: ``FeatureServiceError`` when the body is not the expected JSON.
    static func decode<T: Decodable>(_ response: HTTPResponse, as type: T.Type, operation: String, url: String) throws -> T {
        do {
            if T.self == ApplyEditsResult.self, let scanned = ApplyEditsResult.scanning(response.body) {
                // The load generator's hottest answer, in one pass (any answer the scan does not take goes below).
                return scanned as! T
            }
            if let fast = T.self as? any JSONValueDecodable.Type {
                // Hot answers skip JSONDecoder: a byte-level parse and a direct walk.
                return try fast.init(json: JSONReader.parse(bytes: response.body)) as! T
            }
            return try WireJSON.decode(T.self, from: response.body)
        } catch {
            var failure = FeatureServiceError.undecodable(
                expected: String(describing: T.self), byteCount: response.body.count,
                contentType: response.header("Content-Type"), problem: Self.explain(error), operation: operation,
                url: url)
            failure.response = .init(status: response.status, timing: response.timing)
            throw failure
        }
    }

    /// A short account of a decoding failure: what was wrong and where, no values from the body.
    static func explain(_ error: any Error) -> String {
        if let error = error as? WireDecodingError { return error.description }
        if let error = error as? JSONReader.SyntaxError { return "not valid JSON (\(error.description))" }
        guard let error = error as? DecodingError else { return "not JSON" }
        return DecodingProblem.describe(error)
    }

    /// `url` with `?f=json` (or `&f=json`) appended.
    static func jsonURL(_ url: String) -> String {
        url + (url.contains("?") ? "&f=json" : "?f=json")
    }

    /// `base` with a path component appended before any query string: `…/0?token=t` + `query` → `…/0/query?token=t`.
    static func appending(_ component: String, to base: String) -> String {
        // On the UTF-8 view: this runs once per request, and Character iteration is slow.
        guard let question = base.utf8.firstIndex(of: UInt8(ascii: "?")) else { return trimmed(base) + "/" + component }
        return trimmed(String(base[..<question])) + "/" + component + String(base[question...])
    }

    private static func trimmed(_ url: String) -> String {
        url.utf8.last == UInt8(ascii: "/") ? String(url.utf8.dropLast())! : url
    }
}
