import FeatureModel
import FeatureServiceClient
import FeatureloadBenchmarkSupport
import Foundation

/// Tile queries over HTTP with the libcurl transport: `concurrency` workers, each with one query in flight, taking the
/// URLs in turn.
enum TileLoad {
    struct Outcome {
        var queries: Int
        var bytes: Int
        var seconds: Double
    }

    /// Sends the URLs round and round for `seconds`, at most `maximum` queries in all (and each URL at least once
    /// when `maximum` allows); every answer must be HTTP 200 of `contentType` with no error envelope.
    /// - Throws: ``BenchmarkFailure`` for an error answer; transport errors.
    static func run(
        _ transport: CurlTransport, urls: [String], contentType: String, seconds: Double, maximum: Int, concurrency: Int
    ) async throws -> Outcome {
        let start = DispatchTime.now().uptimeNanoseconds
        let deadline = start + UInt64(seconds * 1e9)
        let perWorker = max(1, maximum / concurrency)
        let minimum = min(perWorker, (urls.count + concurrency - 1) / concurrency)
        let (queries, bytes) = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    var count = 0
                    var bytes = 0
                    var index = worker
                    while count < perWorker, count < minimum || DispatchTime.now().uptimeNanoseconds < deadline {
                        let response = try await transport.send(HTTPRequest(url: urls[index % urls.count], timeout: .seconds(120)))
                        try check(response, contentType: contentType, url: urls[index % urls.count])
                        bytes += response.body.count
                        count += 1
                        index += concurrency
                    }
                    return (count, bytes)
                }
            }
            return try await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
        }
        return Outcome(queries: queries, bytes: bytes, seconds: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }

    /// Fails unless `response` is a 200 of `contentType` (its media type) without an ArcGIS error.
    static func check(_ response: HTTPResponse, contentType: String, url: String) throws {
        let type = response.header("Content-Type")?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        if type.hasSuffix("json"), let error = WireJSON.error(in: response.body) { throw BenchmarkFailure("\(url) answered \(error)") }
        guard response.status == 200 else { throw BenchmarkFailure("\(url) answered HTTP \(response.status)") }
        guard type == contentType else { throw BenchmarkFailure("\(url) answered \(type), not \(contentType)") }
    }

    /// The object IDs and vertex count of a JSON tile answer.
    static func contents(_ body: [UInt8], objectIdField: String) throws -> (ids: [Int64], vertices: Int, exceeded: Bool) {
        guard case .object(let answer) = try JSONReader.parse(bytes: body), case .array(let features)? = answer["features"] else {
            throw BenchmarkFailure("not a feature set: \(String(decoding: body.prefix(300), as: UTF8.self))")
        }
        var ids: [Int64] = []
        var vertices = 0
        for case .object(let feature) in features {
            if case .object(let attributes)? = feature["attributes"], let id = attributes[objectIdField]?.intValue { ids.append(id) }
            guard case .object(let geometry)? = feature["geometry"] else { continue }
            if geometry["x"] != nil { vertices += 1 }
            for key in ["rings", "paths"] {
                if case .array(let parts)? = geometry[key] {
                    for case .array(let part) in parts { vertices += part.count }
                }
            }
            if case .array(let points)? = geometry["points"] { vertices += points.count }
        }
        return (ids, vertices, answer["exceededTransferLimit"]?.boolValue ?? false)
    }
}
