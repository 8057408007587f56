import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import Testing

/// A real Prometheus server (Debian's `prometheus` package) started for one test: it scrapes the given targets every
/// second into a fresh data folder, on a free port of 127.0.0.1, and answers PromQL over its HTTP API.
final class LocalPrometheus: @unchecked Sendable {
    /// One series of a query's answer: its labels and its values at the times asked (one for an instant query).
    struct Series: Sendable, CustomStringConvertible {
        var labels: [String: String]
        var values: [(time: Double, value: Double)]
        var description: String { "\(labels) \(values.map { "\($0.value)@\($0.time)" }.joined(separator: " "))" }
    }

    /// The `prometheus` executable, when installed.
    static let executable: String? = ["/usr/bin/prometheus", "/usr/local/bin/prometheus"].first { FileManager.default.isExecutableFile(atPath: $0) }

    let url: String
    private let process = Process()
    private let directory: TemporaryDirectory

    /// Starts Prometheus scraping `targets` (`host:port`) every second and waits until it is ready.
    init(scraping targets: [String]) async throws {
        let executable = try #require(Self.executable, "Debian's prometheus package is not installed (scripts/install-deps --test installs it)")
        directory = try TemporaryDirectory()
        let port = try LocalPort.free()
        url = "http://127.0.0.1:\(port)"
        let config = """
            global:
              scrape_interval: 1s
              evaluation_interval: 1s
            scrape_configs:
              - job_name: featureload
                scrape_interval: 1s
                scrape_timeout: 900ms
                static_configs:
                  - targets: [\(targets.map { "\"\($0)\"" }.joined(separator: ", "))]
            """
        try config.write(toFile: directory.path + "/prometheus.yml", atomically: true, encoding: .utf8)
        FileManager.default.createFile(atPath: directory.path + "/log", contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "--config.file=\(directory.path)/prometheus.yml", "--storage.tsdb.path=\(directory.path)/data",
            "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn",
        ]
        let log = FileHandle(forWritingAtPath: directory.path + "/log")
        process.standardOutput = log
        process.standardError = log
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, process.isRunning {
            if (try? await get("/-/ready").status) == 200 { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        stop()
        throw PrometheusFailure("prometheus did not become ready on \(url):\n\(log)")
    }

    /// Waits until it has tried to scrape `target` at least once (Prometheus applies new targets every few seconds
    /// after it starts), whether or not anything listens there yet.
    func waitForFirstScrape(of target: String) async throws {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if try await !query("up{instance=\"\(target)\"}").isEmpty { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw PrometheusFailure("prometheus did not scrape \(target) within 60 s:\n\(log)")
    }

    /// What it has logged.
    var log: String { (try? String(contentsOfFile: directory.path + "/log", encoding: .utf8)) ?? "" }

    /// Stops it (SIGTERM) and waits for it to end.
    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// The answer to an instant query, evaluated at `time` (seconds since 1970; now when nil).
    func query(_ expression: String, at time: Double? = nil) async throws -> [Series] {
        var parameters = [("query", expression)]
        if let time { parameters.append(("time", String(format: "%.3f", time))) }
        return try await series(try await api("/api/v1/query", parameters), expression)
    }

    /// The answer to a range query from `start` to `end` every `step` seconds.
    func queryRange(_ expression: String, from start: Double, to end: Double, step: Double = 1) async throws -> [Series] {
        let parameters = [("query", expression), ("start", String(format: "%.3f", start)), ("end", String(format: "%.3f", end)), ("step", "\(step)")]
        return try await series(try await api("/api/v1/query_range", parameters), expression)
    }

    /// The values of label `name` among the series that `match` selects.
    func labelValues(_ name: String, match: String) async throws -> [String] {
        let answer = try await api("/api/v1/label/\(name)/values", [("match[]", match)])
        return answer["data"] as? [String] ?? []
    }

    private func series(_ answer: [String: Any], _ expression: String) async throws -> [Series] {
        let data = try #require(answer["data"] as? [String: Any], Comment(rawValue: "\(expression): \(answer)"))
        let result = try #require(data["result"] as? [[String: Any]], Comment(rawValue: "\(expression): \(answer)"))
        return result.map { item in
            let labels = item["metric"] as? [String: String] ?? [:]
            let pairs = (item["values"] as? [[Any]]) ?? (item["value"] as? [Any]).map { [$0] } ?? []
            return Series(
                labels: labels,
                values: pairs.compactMap { pair in
                    guard pair.count == 2, let time = pair[0] as? Double, let text = pair[1] as? String, let value = Double(text) else { return nil }
                    return (time, value)
                })
        }
    }

    private func api(_ path: String, _ parameters: [(String, String)]) async throws -> [String: Any] {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        let query = parameters.map {
            "\($0.0.addingPercentEncoding(withAllowedCharacters: allowed)!)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)"
        }
        let response = try await get(path + "?" + query.joined(separator: "&"))
        let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any] ?? [:]
        guard response.status == 200, object["status"] as? String == "success" else {
            throw PrometheusFailure("\(path) \(parameters): HTTP \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
        return object
    }

    private func get(_ pathAndQuery: String) async throws -> (status: Int, body: Data) {
        try await withCurlTransport { transport in
            let response = try await transport.send(HTTPRequest(method: .get, url: url + pathAndQuery))
            return (response.status, Data(response.body))
        }
    }
}

/// Prometheus could not be started or refused a query; the message says how.
struct PrometheusFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A free TCP port on 127.0.0.1: bound to port 0, read back, and closed (another process could take it before the
/// caller binds it, which a test notices as a failure to listen).
enum LocalPort {
    static func free() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
