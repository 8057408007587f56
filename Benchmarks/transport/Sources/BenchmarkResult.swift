import Foundation

/// The comparison written to `Reports/benchmarks/transport-<time>.json` and `.md`.
struct BenchmarkResult {
    let options: Options
    let url: String
    let client: ClientLoad
    let wrk: WrkRun
    /// The libcurl loop in C, when it is built.
    let loop: LoopRun?
    let date = Date()

    var ratio: Double { Self.ratio(client.requestsPerSecond, to: wrk.requestsPerSecond) }

    /// `rate` ÷ `base`, or 0 when `base` is 0.
    static func ratio(_ rate: Double, to base: Double) -> Double { base == 0 ? 0 : rate / base }
    /// At this share of wrk's rate or above, the transport is not what limits a run on this endpoint.
    static let target = 0.9

    var stamp: String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }

    var json: [String: Any] {
        [
            "schema": "featureload.transport-benchmark", "schemaVersion": 1,
            "date": ISO8601DateFormatter().string(from: date),
            "url": url, "connections": options.connections, "durationSeconds": options.duration,
            "machine": ["cores": ProcessInfo.processInfo.activeProcessorCount, "os": ProcessInfo.processInfo.operatingSystemVersionString],
            "featureload": [
                "requests": client.requests, "errors": client.errors, "elapsedSeconds": client.elapsed.seconds,
                "requestsPerSecond": client.requestsPerSecond, "cpuSeconds": client.cpu.seconds,
                "cpuMicrosecondsPerRequest": client.cpuPerRequest.microseconds, "connectionsOpened": client.connectionsOpened,
                "latenciesRecorded": client.latencies.count,
                "latencyMilliseconds": [
                    "p50": client.latency(0.5).milliseconds, "p75": client.latency(0.75).milliseconds,
                    "p90": client.latency(0.9).milliseconds, "p99": client.latency(0.99).milliseconds,
                    "max": client.latency(1).milliseconds,
                ],
            ],
            "wrk": [
                "command": wrk.command, "requests": wrk.requests, "requestsPerSecond": wrk.requestsPerSecond,
                "nonSuccess": wrk.nonSuccess, "socketErrors": wrk.socketErrors ?? "none", "latencyMilliseconds": wrk.percentiles,
            ],
            "libcurlLoop": loop.map { loop -> [String: Any] in
                [
                    "command": loop.command, "requests": loop.requests, "errors": loop.errors,
                    "requestsPerSecond": loop.requestsPerSecond, "cpuMicrosecondsPerRequest": loop.cpuPerRequest.microseconds,
                    "latencyMilliseconds": ["p50": loop.p50.milliseconds, "p99": loop.p99.milliseconds],
                    "ratioToWrk": Self.ratio(loop.requestsPerSecond, to: wrk.requestsPerSecond),
                ]
            } ?? "not built",
            "ratio": ratio, "target": Self.target, "meetsTarget": ratio >= Self.target,
        ]
    }

    /// The loop's row and what it says about the transport, or how to get it.
    private var loopLines: (row: String, summary: String) {
        func f(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }
        guard let loop else {
            return (
                "",
                "The libcurl loop is not built: `FEATURELOAD_BENCHMARKS=1 swift build -c release --product featureload-libcurl-loop` puts it next to this benchmark."
            )
        }
        let loopRatio = Self.ratio(loop.requestsPerSecond, to: wrk.requestsPerSecond)
        let share = Self.ratio(client.requestsPerSecond, to: loop.requestsPerSecond)
        return (
            "| `\(loop.command)` (libcurl in C) | \(f(loop.requestsPerSecond)) | \(loop.requests) | \(loop.errors) | \(f(loop.p50.milliseconds, 2)) | – | \(f(loop.p99.milliseconds, 2)) | \(f(loop.cpuPerRequest.microseconds)) |\n",
            "The libcurl loop, the same closed loop in C with nothing of featureload in it, reached \(f(loopRatio, 2))× wrk; "
                + "featureload's transport \(f(share, 2))× the loop, at \(f(client.cpuPerRequest.microseconds)) against "
                + "\(f(loop.cpuPerRequest.microseconds)) µs of client CPU a request."
        )
    }

    var markdown: String {
        func f(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }
        let p = wrk.percentiles
        return """
            # Transport micro-benchmark (\(stamp))

            `GET \(url)` on the local feature service (a child process), \(options.connections) connections, \(options.duration) s, \
            \(ProcessInfo.processInfo.activeProcessorCount) cores shared by server and client.

            | | requests/s | requests | errors | p50 ms | p90 ms | p99 ms | client CPU µs/request |
            |---|---:|---:|---:|---:|---:|---:|---:|
            | featureload (CurlTransport) | \(f(client.requestsPerSecond)) | \(client.requests) | \(client.errors) | \(f(client.latency(0.5).milliseconds, 2)) | \(f(client.latency(0.9).milliseconds, 2)) | \(f(client.latency(0.99).milliseconds, 2)) | \(f(client.cpuPerRequest.microseconds)) |
            | `\(wrk.command)` | \(f(wrk.requestsPerSecond)) | \(wrk.requests) | \(wrk.nonSuccess) | \(p["50%"].map { f($0, 2) } ?? "–") | \(p["90%"].map { f($0, 2) } ?? "–") | \(p["99%"].map { f($0, 2) } ?? "–") | – |
            \(loopLines.row)
            **Ratio: \(f(ratio, 2))× wrk's request rate** (target ≥ \(Self.target)×: \(ratio >= Self.target ? "met" : "not met")). \
            Every featureload latency was recorded (\(client.latencies.count)); connections opened: \(client.connectionsOpened).

            \(loopLines.summary)

            """
    }

    func write(to directory: String) throws -> (json: String, markdown: String) {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let base = (directory as NSString).appendingPathComponent("transport-\(stamp)")
        let data = try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: base + ".json"))
        try Data(markdown.utf8).write(to: URL(fileURLWithPath: base + ".md"))
        return (base + ".json", base + ".md")
    }
}
