import FeatureModel
import FeatureServiceClient
import FeatureloadBenchmarkSupport
import Foundation

/// applyEdits over HTTP with the libcurl transport: `requests` requests of `batchSize` adds each, spread over
/// `concurrency` workers that each send one request at a time.
enum HTTPBatches {
    /// The `adds` JSON of `count` parks, the rows ``RawInsert`` writes too.
    static func adds(_ count: Int) -> String {
        JSONWriter.string(
            features: (0..<count).map { index in
                let row = Row(index)
                return Feature(
                    attributes: [
                        "name": .string(row.name), "state": .string(row.state), "category": .int(row.category), "visitors": .int(row.visitors),
                    ],
                    geometry: .point(x: row.x, y: row.y))
            })
    }

    /// The applyEdits request of one batch of `batchSize` parks.
    static func request(serviceURL: String, batchSize: Int) -> HTTPRequest {
        HTTPRequest.form(
            url: serviceURL + "/0/applyEdits",
            fields: [FormField("f", "json"), FormField("adds", adds(batchSize)), FormField("rollbackOnFailure", "true")],
            timeout: .seconds(120))
    }

    /// One generated park.
    struct Row {
        var name: String
        var state: String
        var category: Int64
        var visitors: Int64
        var x: Double
        var y: Double

        init(_ index: Int) {
            name = "Bench Park \(index % 1000)"
            state = ["CO", "UT", "WY", "CA"][index % 4]
            category = Int64(index % 3 + 1)
            visitors = Int64(index % 100_000)
            x = -105 + Double(index % 1000) / 1000
            y = 40 + Double(index % 997) / 1000
        }
    }

    /// Sends the requests and returns the elapsed seconds.
    /// - Throws: ``BenchmarkFailure`` when an answer is an error or reports a failed edit; transport errors.
    static func run(_ transport: CurlTransport, request: HTTPRequest, requests: Int, concurrency: Int) async throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<min(concurrency, requests) {
                group.addTask {
                    for _ in stride(from: worker, to: requests, by: concurrency) {
                        let response = try await transport.send(request)
                        if let error = WireJSON.error(in: response.body) { throw BenchmarkFailure("applyEdits failed: \(error)") }
                        guard response.status == 200, response.body.count > 20 else {
                            throw BenchmarkFailure("applyEdits answered HTTP \(response.status)")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// Sends `request` for `seconds` (at most `maximumRequests` in all); returns the answered requests and the elapsed
    /// seconds.
    /// - Throws: ``BenchmarkFailure`` when an answer is an error or reports a failed edit; transport errors.
    static func run(
        _ transport: CurlTransport, request: HTTPRequest, seconds: Double, maximumRequests: Int, concurrency: Int
    ) async throws -> (requests: Int, seconds: Double) {
        let start = DispatchTime.now().uptimeNanoseconds
        let deadline = start + UInt64(seconds * 1e9)
        let perWorker = max(1, maximumRequests / concurrency)
        let answered = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var count = 0
                    while count < perWorker, DispatchTime.now().uptimeNanoseconds < deadline {
                        let response = try await transport.send(request)
                        if let error = WireJSON.error(in: response.body) { throw BenchmarkFailure("applyEdits failed: \(error)") }
                        guard response.status == 200, response.body.count > 20 else {
                            throw BenchmarkFailure("applyEdits answered HTTP \(response.status)")
                        }
                        count += 1
                    }
                    return count
                }
            }
            return try await group.reduce(0, +)
        }
        return (answered, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }

    /// Sends batches for `seconds`, sampling `sample()` once a second; returns the samples.
    static func sustain(
        _ transport: CurlTransport, serviceURL: String, batchSize: Int, seconds: Int, concurrency: Int, sample: @Sendable () -> Int?
    ) async throws -> [Int] {
        var samples: [Int] = []
        let request = request(serviceURL: serviceURL, batchSize: batchSize)
        for _ in 0..<seconds {
            let started = DispatchTime.now().uptimeNanoseconds
            while DispatchTime.now().uptimeNanoseconds - started < 1_000_000_000 {
                _ = try await run(transport, request: request, requests: concurrency, concurrency: concurrency)
                let query = try await transport.send(HTTPRequest(url: serviceURL + "/0/query?where=1%3D1&resultRecordCount=200&outFields=*&f=json"))
                if let error = WireJSON.error(in: query.body) { throw BenchmarkFailure("query failed: \(error)") }
            }
            if let value = sample() { samples.append(value) }
        }
        return samples
    }
}
