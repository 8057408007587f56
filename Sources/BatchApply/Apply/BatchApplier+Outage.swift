public import FeatureServiceClient
import FeatureModel

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

    /// Runs `operation` (an idempotent request its retry policy already retries: metadata, a look-up) and, while it
    /// fails because the service cannot be reached, waits for the service as a run waits when sending: runs it again
    /// after 1 s, then twice as long each time up to `probeInterval`, until `wait` has passed since the first failure.
    /// A `wait` of zero makes one try. So `--wait-for-service` covers a run's start and a resume's look-ups as it covers
    /// sending.
    /// - Throws: ``ApplyError/unavailable(_:)`` once the wait is over; the operation's other errors; `CancellationError`.
    package static func waitingForService<T, C: Clock<Duration>>(
        _ wait: Duration, probeInterval: Duration = .seconds(30), clock: C, _ operation: () async throws -> T
    ) async throws -> T {
        var began: C.Instant?
        var pause = min(Duration.seconds(1), probeInterval)
        while true {
            do {
                return try await operation()
            } catch let error as FeatureServiceError {
                guard wait > .zero, let reason = unavailability(error.attemptFailure) else { throw error }
                let first = began ?? clock.now
                began = first
                let deadline = first.advanced(by: wait)
                let now = clock.now
                guard now < deadline else {
                    throw ApplyError.unavailable("the service could not be reached for \(spoken(first.duration(to: now))) (\(reason))")
                }
                try await clock.sleep(until: min(now.advanced(by: pause), deadline), tolerance: nil)
                pause = min(pause * 2, probeInterval)
            }
        }
    }

    /// Probes the service (a count of `layer`, one attempt each) until it answers, pausing 1 s, then twice as long each
    /// time up to ``probeInterval``, and never past `deadline`. Says whether it answered; any answer will do, even a
    /// refusal, since the batches' own requests then say what is wrong.
    func awaitService<C: Clock<Duration>>(layer: Int, clock: C, until deadline: C.Instant) async -> Bool {
        var pause = min(Duration.seconds(1), probeInterval)
        while !Task.isCancelled {
            let now = clock.now
            guard now < deadline else { return false }
            let wake = now.advanced(by: pause) < deadline ? now.advanced(by: pause) : deadline
            do {
                try await clock.sleep(until: wake, tolerance: nil)
            } catch {
                return false
            }
            do {
                _ = try await service.layer(id: layer).count()
                return true
            } catch let error as FeatureServiceError {
                if Self.unavailability(error.attemptFailure) == nil { return true }
            } catch is CancellationError {
                return false
            } catch {
                // Not an answer: probe again.
            }
            pause = min(pause * 2, probeInterval)
        }
        return false
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
