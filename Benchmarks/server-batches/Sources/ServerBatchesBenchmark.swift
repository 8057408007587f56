import ArgumentParser
import FeatureModel
import FeatureServiceClient
import FeatureloadBenchmarkSupport
import Foundation

/// `featureload-bench`: edits/s of applyEdits per batch size over HTTP against `featureload serve`, next to the raw
/// SQLite insert rate of the same rows, and the server's memory under sustained load. See Benchmarks/README.md.
@main
struct ServerBatchesBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "featureload-bench",
        abstract: "applyEdits edits/s per batch size over HTTP vs raw SQLite inserts; server RSS under sustained load.")

    @Option(help: "The featureload binary to serve with (default: next to this one).")
    var featureload: String?

    @Option(help: "Directory the reports go to.")
    var output: String = "Reports/benchmarks"

    @Option(help: "Batch sizes to measure.")
    var batchSizes: [Int] = [1, 10, 100, 1000]

    @Option(help: "Edits per batch size (at least one request each).")
    var edits: [Int] = [5_000, 20_000, 50_000, 100_000]

    @Option(help: "Concurrent requests.")
    var concurrency: Int = 4

    @Option(help: "Seconds of sustained load (batches of 100 plus queries) for the memory check.")
    var sustainSeconds: Int = 30

    @Option(help: "The floor server binary (default: featureload-floor next to this one).")
    var floor: String?

    @Option(help: "Pairs of single-add rounds against featureload serve and the floor, alternating (0: skip).")
    var floorRounds: Int = 4

    @Option(help: "Seconds per single-add round.")
    var floorSeconds: Double = 5

    @Flag(help: "Only the single-add comparison with the floor (no batches, raw inserts or sustained load).")
    var floorOnly = false

    func validate() throws {
        guard !batchSizes.isEmpty, batchSizes.allSatisfy({ $0 >= 1 }) else { throw ValidationError("--batch-sizes must be positive") }
        guard edits.count == batchSizes.count else { throw ValidationError("--edits needs one count per batch size") }
        guard concurrency >= 1, sustainSeconds >= 0 else { throw ValidationError("--concurrency ≥ 1 and --sustain-seconds ≥ 0") }
        guard floorRounds >= 0, floorSeconds > 0, floorSeconds <= 600 else { throw ValidationError("--floor-rounds ≥ 0, 0 < --floor-seconds ≤ 600") }
        guard !floorOnly || floorRounds > 0 else { throw ValidationError("--floor-only needs --floor-rounds ≥ 1") }
    }

    func run() async throws {
        let binary = featureload ?? siblingBinary("featureload")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("featureload-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let server = try ServerProcess(binary: binary, directory: directory)
        defer { server.stop() }
        log("server: \(server.serviceURL) (pid \(server.process.processIdentifier))")
        var result = BenchmarkResult(concurrency: concurrency, binary: binary)
        result.loadAverageBefore = loadAverage()
        try await withCurlTransport(configuration: .init(maxConnections: max(concurrency, 4))) { transport in
            if floorRounds > 0 {
                let floorServer = try ServerProcess(floor: floor ?? siblingBinary("featureload-floor"), directory: directory)
                defer { floorServer.stop() }
                log("floor: \(floorServer.serviceURL) (pid \(floorServer.process.processIdentifier))")
                let comparison = try await FloorComparison.measure(
                    transport, serve: server, floor: floorServer, rounds: floorRounds, seconds: floorSeconds, concurrency: concurrency)
                log(comparison.summary)
                result.floor = comparison
            }
            if floorOnly { return }
            // Warm-up: connections, caches and the first pages of the table.
            for size in batchSizes {
                _ = try await HTTPBatches.run(
                    transport, request: HTTPBatches.request(serviceURL: server.serviceURL, batchSize: size), requests: concurrency,
                    concurrency: concurrency)
            }
            result.residentBytesBefore = server.residentBytes
            let initial = try await Self.count(transport, server.serviceURL)
            for (size, total) in zip(batchSizes, edits) {
                let requests = max(1, total / size)
                let request = HTTPBatches.request(serviceURL: server.serviceURL, batchSize: size)
                let seconds = try await HTTPBatches.run(transport, request: request, requests: requests, concurrency: concurrency)
                let rate = Double(requests * size) / seconds
                log("HTTP batch \(size): \(requests * size) edits in \(String(format: "%.2f", seconds)) s = \(Int(rate)) edits/s")
                result.rows.append(.init(batchSize: size, edits: requests * size, httpSeconds: seconds, httpEditsPerSecond: rate))
            }
            // Every edit answered as a success must be in the table.
            let expected = initial + result.rows.reduce(0) { $0 + $1.edits }
            let actual = try await Self.count(transport, server.serviceURL)
            guard actual == expected else { throw BenchmarkFailure("layer 0 holds \(actual) rows, expected \(expected)") }
            result.verifiedRows = actual
            if sustainSeconds > 0 {
                log("sustained load for \(sustainSeconds) s …")
                result.residentSamples = try await HTTPBatches.sustain(
                    transport, serviceURL: server.serviceURL, batchSize: 100, seconds: sustainSeconds, concurrency: concurrency
                ) { server.residentBytes }
                result.residentBytesAfter = server.residentBytes
            }
        }
        result.loadAverageAfter = loadAverage()
        if floorOnly { return try finish(result) }
        // The raw limit, with the server idle: the same table, rows and transaction sizes.
        let schema = try RawInsert.schema(of: server.databasePath)
        let rawPath = directory.appendingPathComponent("raw.sqlite").path
        var offset = 0
        for index in result.rows.indices {
            let row = result.rows[index]
            let seconds = try RawInsert.run(path: rawPath, schema: schema, create: index == 0, rows: row.edits, batchSize: row.batchSize) {
                Self.rawRow(offset + $0)
            }
            offset += row.edits
            result.rows[index].rawSeconds = seconds
            result.rows[index].rawRowsPerSecond = Double(row.edits) / seconds
            log(
                "raw SQLite batch \(row.batchSize): \(Int(Double(row.edits) / seconds)) rows/s; ratio \(String(format: "%.1f", 100 * result.rows[index].ratio)) %"
            )
        }
        try finish(result)
    }

    /// Writes the reports and prints the table.
    func finish(_ result: BenchmarkResult) throws {
        let (json, markdown) = try BenchmarkReport.write(result, to: output)
        log("wrote \(json) and \(markdown)")
        print(BenchmarkReport.markdown(result))
    }

    /// The columns ``RawInsert`` binds for row `index`: what the server stores for the same park.
    static func rawRow(_ index: Int) -> [String: RawInsert.RawValue] {
        let row = HTTPBatches.Row(index)
        let globalId = String(
            format: "{%08X-%04X-7000-8000-%012X}", UInt32(truncatingIfNeeded: index >> 16), UInt16(truncatingIfNeeded: index), index)
        return [
            "globalid": .text(globalId), "name": .text(row.name), "state": .text(row.state), "category": .integer(row.category),
            "visitors": .integer(row.visitors), "__shape_x": .real(row.x), "__shape_y": .real(row.y),
        ]
    }

    /// Rows in layer 0, by a count query.
    static func count(_ transport: CurlTransport, _ serviceURL: String) async throws -> Int {
        let response = try await transport.send(HTTPRequest(url: serviceURL + "/0/query?where=1%3D1&returnCountOnly=true&f=json"))
        guard case .object(let object)? = try? JSONReader.parse(bytes: response.body), let count = object["count"]?.intValue else {
            throw BenchmarkFailure("count query failed: \(String(decoding: response.body, as: UTF8.self))")
        }
        return Int(count)
    }
}
