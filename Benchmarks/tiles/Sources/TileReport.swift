import FeatureloadBenchmarkSupport
import Foundation

/// The server process's CPU over some tile queries.
struct CPUMeasure: Codable {
    var queries = 0
    var cpuSeconds = 0.0
    var seconds = 0.0
    var bytes = 0

    var microsecondsPerQuery: Double { queries > 0 ? 1e6 * cpuSeconds / Double(queries) : 0 }
    var bytesPerQuery: Double { queries > 0 ? Double(bytes) / Double(queries) : 0 }

    mutating func add(_ other: CPUMeasure) {
        queries += other.queries
        cpuSeconds += other.cpuSeconds
        seconds += other.seconds
        bytes += other.bytes
    }
}

/// One layer at one zoom level: what each server answered for its tiles and what that cost.
struct TileCase: Codable {
    var layer: TileLayer
    var level: Int
    var tiles: [Tile]
    /// From the check pass, one query per tile: features and vertices answered, per tile.
    var featuresPerTile = 0.0
    var serveVerticesPerTile = 0.0
    var floorVerticesPerTile = 0.0
    /// Tiles where featureload serve and the floor answered different object IDs (must be none).
    var differingTiles: [Tile] = []
    var exceededTiles = 0
    var serveJSON = CPUMeasure()
    var servePBF = CPUMeasure()
    var floorJSON = CPUMeasure()
    /// Answer sizes over the check pass, one query per tile in each format.
    var jsonBytes = 0
    var pbfBytes = 0
    /// Why PBF could not be measured, when it could not.
    var pbfProblem: String?

    var cpuRatio: Double { floorJSON.microsecondsPerQuery > 0 ? serveJSON.microsecondsPerQuery / floorJSON.microsecondsPerQuery : 0 }
    var pbfRatio: Double { jsonBytes > 0 && pbfProblem == nil ? Double(pbfBytes) / Double(jsonBytes) : 0 }

    init(layer: TileLayer, level: Int, tiles: [Tile]) {
        self.layer = layer
        self.level = level
        self.tiles = tiles
    }
}

/// Server memory over the long run: RSS sampled every `every` queries.
struct Sustain: Codable {
    var queries = 0
    var seconds = 0.0
    var every = 0
    var residentBytes: [Int] = []
    /// The highest sample of the last quarter over the highest of the first quarter.
    var growth: Double {
        let quarter = max(1, residentBytes.count / 4)
        guard residentBytes.count >= 4, let first = residentBytes.prefix(quarter).max(), let last = residentBytes.suffix(quarter).max(), first > 0
        else { return 0 }
        return Double(last) / Double(first)
    }
}

/// What one run of the tile benchmark measured, and its verdicts.
struct TileBenchmarkResult: Codable {
    var version = 1
    var startedAt = ISO8601DateFormatter().string(from: Date())
    var binary: String
    var cores = ProcessInfo.processInfo.activeProcessorCount
    var host = ProcessInfo.processInfo.operatingSystemVersionString
    var rows: Int
    var concurrency: Int
    var rounds: Int
    var secondsPerRound: Double
    var cases: [TileCase] = []
    var sustain = Sustain()
    var loadAverageBefore: [Double]?
    var loadAverageAfter: [Double]?
    /// serve's CPU per tile at most this multiple of the floor's, per case.
    var cpuTarget = 2.0
    /// PBF answers at most this share of the JSON answers' bytes, per case.
    var pbfTarget = 0.5
    /// RSS over the long run: the last quarter's peak at most this multiple of the first quarter's.
    var growthTarget = 1.10
    var sustainTarget = 100_000

    var cpuPassed: Bool { !cases.isEmpty && cases.allSatisfy { $0.cpuRatio > 0 && $0.cpuRatio <= cpuTarget && $0.differingTiles.isEmpty } }
    var pbfPassed: Bool { !cases.isEmpty && cases.allSatisfy { $0.pbfRatio > 0 && $0.pbfRatio <= pbfTarget } }
    var memoryPassed: Bool { sustain.queries >= sustainTarget && sustain.growth > 0 && sustain.growth <= growthTarget }
    var passed: Bool { cpuPassed && pbfPassed && memoryPassed }
}

enum TileReport {
    /// Writes `tiles-<time>.json` and `.md` into `directory`; returns their paths.
    static func write(_ result: TileBenchmarkResult, to directory: String) throws -> (String, String) {
        try writeReport(result, markdown: markdown(result), name: "tiles", startedAt: result.startedAt, to: directory)
    }

    static func markdown(_ result: TileBenchmarkResult) -> String {
        func load(_ values: [Double]?) -> String { values.map { $0.map { String(format: "%.2f", $0) }.joined(separator: " ") } ?? "n/a" }
        func verdict(_ passed: Bool) -> String { passed ? "PASS" : "FAIL" }
        var text = """
            # Map tiles: featureload serve against the floor

            Run \(result.startedAt) on \(result.cores) cores (\(result.host)); client and servers share them. Load average \
            (1, 5, 15 min) \(load(result.loadAverageBefore)) before, \(load(result.loadAverageAfter)) after. Datasets \
            parks and parkboundaries with --rows \(result.rows); \(result.concurrency) queries in flight.

            Each query is a 512-px Web Mercator tile as a web map asks for it: envelope in 102100, resultType=tile, \
            view-mode quantizationParameters at one pixel, orderByFields and outFields the object ID. The floor is \
            featureload-floor answering the same JSON from the same SQLite file with SQLite's C API and GEOS (index \
            lookup, prepared intersects, projection, simplification to a pixel, quantization, bytes appended), on \
            Hummingbird. CPU is each server process's utime + stime over \(result.rounds) alternating rounds of \
            \(String(format: "%.0f", result.secondsPerRound)) s per server and format.

            | layer | level | tiles | features/tile | vertices/tile serve (floor) | serve µs/tile | floor µs/tile | CPU ratio | JSON B/tile | PBF B/tile | PBF/JSON |
            |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|

            """
        for item in result.cases {
            let tiles = Double(max(1, item.tiles.count))
            let pbf = item.pbfProblem == nil ? String(format: "%.0f", Double(item.pbfBytes) / tiles) : "n/a"
            let pbfRatio = item.pbfProblem == nil ? String(format: "%.2f", item.pbfRatio) : "n/a"
            let differing = item.differingTiles.isEmpty ? "" : " (\(item.differingTiles.count) tiles differ)"
            text += "| \(item.layer.service)/\(item.layer.id) \(item.layer.name) | \(item.level) | \(item.tiles.count) | "
            text += String(format: "%.1f | %.0f (%.0f) | ", item.featuresPerTile, item.serveVerticesPerTile, item.floorVerticesPerTile)
            text += String(
                format: "%.0f | %.0f | %.2f%@ | ", item.serveJSON.microsecondsPerQuery, item.floorJSON.microsecondsPerQuery, item.cpuRatio, differing)
            text += String(format: "%.0f | %@ | %@ |\n", Double(item.jsonBytes) / tiles, pbf, pbfRatio)
        }
        let problems = result.cases.compactMap(\.pbfProblem)
        if let problem = problems.first { text += "\nPBF not measured: \(problem)\n" }
        let worstCPU = result.cases.map(\.cpuRatio).max() ?? 0
        let worstPBF = result.cases.map(\.pbfRatio).max() ?? 0
        text += """

            - CPU per tile within \(String(format: "%.0f", result.cpuTarget))× the floor on every layer and level, with the same \
            features answered: **\(verdict(result.cpuPassed))** (worst \(String(format: "%.2f", worstCPU))×).
            - PBF at most \(String(format: "%.1f", result.pbfTarget))× the bytes of JSON for the same tiles: \
            **\(verdict(result.pbfPassed))** (worst \(String(format: "%.2f", worstPBF))).

            """
        let sustain = result.sustain
        let samples = sustain.residentBytes.map { String(format: "%.0f", Double($0) / 1_048_576) }.joined(separator: " ")
        text += """
            - Server RSS flat over \(sustain.queries) tile queries (\(String(format: "%.0f", sustain.seconds)) s; target \
            \(result.sustainTarget), last quarter's peak ≤ \(String(format: "%.2f", result.growthTarget))× the first's): \
            **\(verdict(result.memoryPassed))** (\(String(format: "%.3f", sustain.growth))×; MiB every \(sustain.every) queries: \(samples)).

            Overall: **\(verdict(result.passed))**.

            """
        return text
    }
}
