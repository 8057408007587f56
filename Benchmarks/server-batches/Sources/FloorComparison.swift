import FeatureServiceClient
import FeatureloadBenchmarkSupport
import Foundation

/// Single-add applyEdits against `featureload serve` and against the floor (`featureload-floor`, the least a
/// Hummingbird + GRDB server can do for the same request): the server process's CPU per request, each measured over
/// requests counted in its own database, in alternating rounds with the same client.
struct FloorComparison: Codable {
    /// One measured round against one server.
    struct Round: Codable {
        var server: String
        /// Rows the server added during the round (one per request), read from its database file.
        var requests: Int
        /// The server process's user + system CPU during the round.
        var cpuSeconds: Double
        var seconds: Double
        var microsecondsPerRequest: Double { requests > 0 ? 1e6 * cpuSeconds / Double(requests) : 0 }
    }

    var concurrency: Int
    var secondsPerRound: Double
    var rounds: [Round] = []
    /// featureload serve's CPU per request must be at most this multiple of the floor's.
    var target = 2.0

    init(concurrency: Int, secondsPerRound: Double) {
        self.concurrency = concurrency
        self.secondsPerRound = secondsPerRound
    }

    /// CPU µs per request over all rounds against `server`.
    func microsecondsPerRequest(_ server: String) -> Double {
        let mine = rounds.filter { $0.server == server }
        let requests = mine.reduce(0) { $0 + $1.requests }
        return requests > 0 ? 1e6 * mine.reduce(0) { $0 + $1.cpuSeconds } / Double(requests) : 0
    }

    /// Requests (single adds) per second over all rounds against `server`.
    func editsPerSecond(_ server: String) -> Double {
        let mine = rounds.filter { $0.server == server }
        let seconds = mine.reduce(0) { $0 + $1.seconds }
        return seconds > 0 ? Double(mine.reduce(0) { $0 + $1.requests }) / seconds : 0
    }

    var ratio: Double {
        let floor = microsecondsPerRequest(Self.floor)
        return floor > 0 ? microsecondsPerRequest(Self.serve) / floor : 0
    }

    var passed: Bool { ratio > 0 && ratio <= target }

    static let serve = "featureload serve"
    static let floor = "featureload-floor"

    enum CodingKeys: String, CodingKey {
        case concurrency, secondsPerRound, rounds, target, serveMicrosecondsPerRequest, floorMicrosecondsPerRequest, ratio, passed
        case serveEditsPerSecond, floorEditsPerSecond
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        concurrency = try container.decode(Int.self, forKey: .concurrency)
        secondsPerRound = try container.decode(Double.self, forKey: .secondsPerRound)
        rounds = try container.decode([Round].self, forKey: .rounds)
        target = try container.decode(Double.self, forKey: .target)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(concurrency, forKey: .concurrency)
        try container.encode(secondsPerRound, forKey: .secondsPerRound)
        try container.encode(rounds, forKey: .rounds)
        try container.encode(target, forKey: .target)
        try container.encode(microsecondsPerRequest(Self.serve), forKey: .serveMicrosecondsPerRequest)
        try container.encode(microsecondsPerRequest(Self.floor), forKey: .floorMicrosecondsPerRequest)
        try container.encode(ratio, forKey: .ratio)
        try container.encode(passed, forKey: .passed)
        try container.encode(editsPerSecond(Self.serve), forKey: .serveEditsPerSecond)
        try container.encode(editsPerSecond(Self.floor), forKey: .floorEditsPerSecond)
    }

    /// The summary lines: both costs, the ratio and its verdict.
    var summary: String {
        let serve = microsecondsPerRequest(Self.serve)
        let floor = microsecondsPerRequest(Self.floor)
        return String(
            format:
                "single-add CPU per request: featureload serve %.1f µs (%.0f edits/s), featureload-floor %.1f µs (%.0f edits/s); ratio %.2f× (target ≤ %.1f×): %@",
            serve, editsPerSecond(Self.serve), floor, editsPerSecond(Self.floor), ratio, target, passed ? "PASS" : "FAIL")
    }

    /// Measures `rounds` pairs of rounds of `seconds` each, alternating which server goes first, after a warm-up of
    /// each. Every loop is bounded by `seconds` and by `maximumRequests` per round.
    static func measure(
        _ transport: CurlTransport, serve: ServerProcess, floor: ServerProcess, rounds: Int, seconds: Double, concurrency: Int,
        maximumRequests: Int = 200_000
    ) async throws -> FloorComparison {
        var comparison = FloorComparison(concurrency: concurrency, secondsPerRound: seconds)
        let servers = [(Self.serve, serve), (Self.floor, floor)]
        for (_, server) in servers {
            let request = HTTPBatches.request(serviceURL: server.serviceURL, batchSize: 1)
            _ = try await HTTPBatches.run(transport, request: request, requests: 200, concurrency: concurrency)
        }
        for round in 0..<rounds {
            for (name, server) in round % 2 == 0 ? servers : servers.reversed() {
                let measured = try await measureRound(
                    transport, server: server, name: name, seconds: seconds, concurrency: concurrency, maximumRequests: maximumRequests)
                log(String(format: "round %d %@: %d requests, %.1f µs CPU each", round + 1, name, measured.requests, measured.microsecondsPerRequest))
                comparison.rounds.append(measured)
            }
        }
        return comparison
    }

    private static func measureRound(
        _ transport: CurlTransport, server: ServerProcess, name: String, seconds: Double, concurrency: Int, maximumRequests: Int
    ) async throws -> Round {
        let request = HTTPBatches.request(serviceURL: server.serviceURL, batchSize: 1)
        let rowsBefore = try RawInsert.count(path: server.databasePath)
        guard let cpuBefore = server.cpuSeconds else { throw BenchmarkFailure("cannot read /proc/\(server.process.processIdentifier)/stat") }
        let (sent, elapsed) = try await HTTPBatches.run(
            transport, request: request, seconds: seconds, maximumRequests: maximumRequests, concurrency: concurrency)
        guard let cpuAfter = server.cpuSeconds else { throw BenchmarkFailure("cannot read /proc/\(server.process.processIdentifier)/stat") }
        let added = try RawInsert.count(path: server.databasePath) - rowsBefore
        guard added == sent else { throw BenchmarkFailure("\(name) added \(added) rows for \(sent) answered single adds") }
        return Round(server: name, requests: added, cpuSeconds: cpuAfter - cpuBefore, seconds: elapsed)
    }
}
