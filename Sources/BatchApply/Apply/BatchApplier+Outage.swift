import FeatureModel
import FeatureServiceClient

/// A service that cannot be reached: which failures say so, waiting for it, probing it.
extension BatchApplier {
    /// How a batch's last attempt failed, when the run is to wait for the service and the failure says it cannot be
    /// reached; nil otherwise (the batch's edits then fail as they are).
    func outage(after failure: AttemptFailure?) -> String? {
        guard serviceWait > .zero, let failure else { return nil }
        return Self.unavailability(failure)
    }

    /// How the last attempt failed, when that says the service cannot take the request now (rather than that it refused
    /// the request itself): no connection, a timeout or broken exchange, HTTP (or ArcGIS error code) 502, 503 or 504,
    /// and 429, the service asking for fewer requests for a while. A batch whose retries all met these waits for the
    /// service and goes again, rather than failing: a throttling service is one to wait for, as an overnight load
    /// against a busy one must.
    static func unavailability(_ failure: AttemptFailure) -> String? {
        let gateway: Set<Int> = [502, 503, 504]
        switch failure {
        case .transport(let kind, _):
            let unreachable: [TransportError.Kind] = [.couldNotResolveHost, .couldNotConnect, .timedOut, .sendFailed, .receiveFailed, .emptyReply]
            return unreachable.contains(kind) ? "\(failure)" : nil
        case .httpStatus(429), .arcgis(code: 429, _), .arcgis(_, httpStatus: 429): return "\(failure): throttled"
        case .httpStatus(let status): return gateway.contains(status) ? "\(failure)" : nil
        case .arcgis(let code, let status): return gateway.contains(code) || gateway.contains(status) ? "\(failure)" : nil
        case .undecodable, .invalidRequest: return nil
        }
    }

    /// The pacing of a wait for a service that cannot be reached, as a retry policy: the first pause 1 s, each next
    /// twice as long up to `probeInterval`, for `wait` in all, with no limit on the number of tries; `Retry-After` is
    /// left to each try's own retry policy. The pauses are the policy's ceilings, unjittered: one waiter has no crowd
    /// to spread out, and the documented pacing stays exact.
    static func outagePacing(wait: Duration, probeInterval: Duration) -> RetryPolicy {
        RetryPolicy(
            maximumAttempts: .max, initialBackoff: .seconds(1), maximumBackoff: probeInterval, multiplier: 2, budget: wait,
            honoursRetryAfter: false)
    }

    /// The pause before try `retry` + 1 (1-based: 1 after the first failure) of a wait paced by `pacing` that has gone
    /// on for `elapsed`: the policy's ceiling before that retry, cut short where its budget ends, so the last try falls
    /// on the end of the wait; nil once the budget is spent (or the tries are).
    static func pause(_ pacing: RetryPolicy, beforeRetry retry: Int, elapsed: Duration) -> Duration? {
        let left = pacing.budget - elapsed
        guard left > .zero, retry < pacing.maximumAttempts else { return nil }
        return min(pacing.ceiling(beforeRetry: retry), left)
    }

    /// Runs `operation` (an idempotent request its retry policy already retries: metadata, a look-up) and, while it
    /// fails because the service cannot be reached, waits for the service as a run waits when sending: runs it again
    /// after 1 s, then twice as long each time up to `probeInterval`, until `wait` has passed since the first failure
    /// (``outagePacing(wait:probeInterval:)``). A `wait` of zero makes one try. So `--wait-for-service` covers a run's
    /// start and a resume's look-ups as it covers sending.
    /// - Throws: ``ApplyError/unavailable(_:)`` once the wait is over; the operation's other errors; `CancellationError`.
    package static func waitingForService<T, C: Clock<Duration>>(
        _ wait: Duration, probeInterval: Duration = .seconds(30), clock: C, _ operation: () async throws -> T
    ) async throws -> T {
        let pacing = outagePacing(wait: wait, probeInterval: probeInterval)
        var began: C.Instant?
        return try await RetryDriver.run(operation) { error, failures in
            guard wait > .zero, let reason = unavailability(error.attemptFailure) else { return .stop }
            let now = clock.now
            let first = began ?? now
            began = first
            guard let delay = Self.pause(pacing, beforeRetry: failures, elapsed: first.duration(to: now)) else {
                throw ApplyError.unavailable("the service could not be reached for \(spoken(first.duration(to: now))) (\(reason))")
            }
            return .retry(after: delay)
        } sleep: { delay in
            try await clock.sleep(until: clock.now.advanced(by: delay), tolerance: nil)
        }
    }

    /// Sleeps until `at`, then probes the service with a count of `layer` (one attempt). True when it answered (any
    /// answer will do, even a refusal); false when it still cannot be reached (or the probe failed otherwise); nil when
    /// the task was cancelled.
    func probe<C: Clock<Duration>>(layer: Int, at: C.Instant, clock: C) async -> Bool? {
        do {
            try await clock.sleep(until: at, tolerance: nil)
        } catch {
            return nil
        }
        do {
            _ = try await service.layer(id: layer).count()
            return true
        } catch let error as FeatureServiceError {
            return Self.unavailability(error.attemptFailure) == nil
        } catch is CancellationError {
            return nil
        } catch {
            // Not an answer: probe again.
            return false
        }
    }

    /// `duration` as people say it: `45 s`, `3 min 20 s`, `2 h 5 min`.
    package static func spoken(_ duration: Duration) -> String {
        let seconds = Int(duration.seconds.rounded())
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3600 { return seconds % 60 == 0 ? "\(seconds / 60) min" : "\(seconds / 60) min \(seconds % 60) s" }
        let minutes = seconds / 60
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }
}
