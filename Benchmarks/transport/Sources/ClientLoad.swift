import FeatureServiceClient
import Foundation

/// One closed-loop run through ``CurlTransport``: `connections` tasks, each sending the next request as soon as
/// the previous answer arrives, until the duration is over. Every latency is kept.
struct ClientLoad {
    /// Requests answered with HTTP 200.
    var requests: Int
    /// Requests that failed or answered another status.
    var errors: Int
    /// Wall time of the run.
    var elapsed: Duration
    /// User plus system CPU time of this process during the run (the server runs in another process).
    var cpu: Duration
    /// Every latency in nanoseconds, sorted.
    var latencies: [Int64]
    /// Connections libcurl opened.
    var connectionsOpened: Int

    var requestsPerSecond: Double { Double(requests) / elapsed.seconds }
    var cpuPerRequest: Duration { requests == 0 ? .zero : cpu / requests }

    /// The latency at quantile `q` (0…1).
    func latency(_ q: Double) -> Duration {
        guard !latencies.isEmpty else { return .zero }
        let index = min(latencies.count - 1, Int((Double(latencies.count) * q).rounded(.up)) - 1)
        return .nanoseconds(latencies[max(0, index)])
    }

    static func run(url: String, connections: Int, duration: Duration) async throws -> ClientLoad {
        var configuration = CurlTransportConfiguration()
        configuration.maxConnections = connections
        return try await withCurlTransport(configuration: configuration) { transport in
            let clock = ContinuousClock()
            let request = HTTPRequest(url: url)
            let cpuBefore = processCPUTime()
            let start = clock.now
            let deadline = start.advanced(by: duration)
            let perWorker = try await withThrowingTaskGroup(of: (latencies: [Int64], errors: Int).self) { group in
                for _ in 0..<connections {
                    // As the runner runs its VUs: on the transport's driver thread.
                    group.addTask(executorPreference: transport.taskExecutor) {
                        var latencies: [Int64] = []
                        latencies.reserveCapacity(65_536)
                        var errors = 0
                        while clock.now < deadline {
                            let sent = clock.now
                            do {
                                let response = try await transport.send(request)
                                if response.status == 200 {
                                    latencies.append(sent.duration(to: clock.now).nanosecondCount)
                                } else {
                                    errors += 1
                                }
                            } catch is TransportError {
                                errors += 1
                            }
                        }
                        return (latencies, errors)
                    }
                }
                return try await group.reduce(into: [(latencies: [Int64], errors: Int)]()) { $0.append($1) }
            }
            let elapsed = start.duration(to: clock.now)
            let cpu = processCPUTime() - cpuBefore
            let latencies = perWorker.flatMap(\.latencies).sorted()
            return ClientLoad(
                requests: latencies.count, errors: perWorker.reduce(0) { $0 + $1.errors }, elapsed: elapsed, cpu: cpu,
                latencies: latencies, connectionsOpened: transport.statistics.connectionsOpened)
        }
    }
}

/// User plus system CPU time of this process so far (getrusage).
func processCPUTime() -> Duration {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func duration(_ time: timeval) -> Duration { .seconds(Int64(time.tv_sec)) + .microseconds(Int64(time.tv_usec)) }
    return duration(usage.ru_utime) + duration(usage.ru_stime)
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
    var nanosecondCount: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
    var milliseconds: Double { seconds * 1000 }
    var microseconds: Double { seconds * 1_000_000 }
}
