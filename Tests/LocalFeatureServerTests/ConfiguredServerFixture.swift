import FeatureModel
import FeatureServiceClient
import Foundation
import LocalFeatureServer
import Logging
import Synchronization

/// Runs `body` against a real server on 127.0.0.1 port 0 (temporary SQLite file) with a configuration the test
/// shapes: token security, faults, limits.
func withConfiguredServer<T: Sendable>(
    logger: Logger = Logger(label: "featureload.test", factory: { _ in SwiftLogNoOpLogHandler() }),
    _ configure: (inout LocalFeatureServerConfiguration) -> Void,
    _ body: @Sendable (LocalFeatureServerEndpoint) async throws -> T
) async throws -> T {
    var configuration = LocalFeatureServerConfiguration(host: "127.0.0.1", port: 0)
    configure(&configuration)
    return try await withLocalFeatureServer(configuration, logger: logger, body)
}

/// A clock in epoch milliseconds that moves only when told to.
final class ManualMilliseconds: Sendable {
    private let value: Atomic<Int64>

    init(_ start: Int64 = 1_700_000_000_000) { value = Atomic(start) }

    var now: Int64 { value.load(ordering: .relaxed) }
    func advance(minutes: Int64) { value.add(minutes * 60_000, ordering: .relaxed) }
    var closure: @Sendable () -> Int64 { { self.now } }
}

/// Keeps every log record (message and metadata) of a logger, at every level.
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    var text: String { lines.withLock { $0.joined(separator: "\n") } }

    func logger(_ label: String = "featureload.test") -> Logger {
        var logger = Logger(label: label) { _ in CapturingHandler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }
}

private struct CapturingHandler: LogHandler {
    let capture: LogCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        capture.append("\(event.level) \(event.message) \(all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))")
    }
}

/// Small HTTP conveniences for the integration tests.
enum Wire {
    /// `response`'s body as text.
    static func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    /// `response`'s body parsed as a JSON object (empty when it is not one).
    static func object(_ response: HTTPResponse) -> [String: JSONValue] {
        guard case .object(let object)? = try? JSONReader.parse(bytes: response.body) else { return [:] }
        return object
    }

    /// One park as applyEdits `adds` JSON.
    static func parkAdds(_ count: Int = 1, name: String = "Fault Park") -> String {
        "["
            + (0..<count).map {
                #"{"attributes":{"name":"\#(name) \#($0)","state":"CO","category":1,"visitors":\#($0)},"geometry":{"x":-105,"y":40}}"#
            }
            .joined(separator: ",") + "]"
    }

    /// Number of rows in layer 0 of `serviceURL`, through a count query.
    static func count(_ transport: CurlTransport, _ serviceURL: String, token: String? = nil) async throws -> Int64? {
        var url = serviceURL + "/0/query?where=1%3D1&returnCountOnly=true&f=json"
        if let token { url += "&token=" + token }
        return object(try await transport.send(HTTPRequest(url: url)))["count"]?.intValue
    }
}
