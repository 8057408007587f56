import FeatureloadBenchmarkSupport
import Foundation

/// What one benchmark run measured.
struct BenchmarkResult: Codable {
    struct Row: Codable {
        var batchSize: Int
        var edits: Int
        var httpSeconds: Double
        var httpEditsPerSecond: Double
        var rawSeconds: Double = 0
        var rawRowsPerSecond: Double = 0
        /// End-to-end edits/s over the raw insert rate.
        var ratio: Double { rawRowsPerSecond > 0 ? httpEditsPerSecond / rawRowsPerSecond : 0 }

        enum CodingKeys: String, CodingKey { case batchSize, edits, httpSeconds, httpEditsPerSecond, rawSeconds, rawRowsPerSecond, ratio }

        init(batchSize: Int, edits: Int, httpSeconds: Double, httpEditsPerSecond: Double) {
            self.batchSize = batchSize
            self.edits = edits
            self.httpSeconds = httpSeconds
            self.httpEditsPerSecond = httpEditsPerSecond
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            batchSize = try container.decode(Int.self, forKey: .batchSize)
            edits = try container.decode(Int.self, forKey: .edits)
            httpSeconds = try container.decode(Double.self, forKey: .httpSeconds)
            httpEditsPerSecond = try container.decode(Double.self, forKey: .httpEditsPerSecond)
            rawSeconds = try container.decode(Double.self, forKey: .rawSeconds)
            rawRowsPerSecond = try container.decode(Double.self, forKey: .rawRowsPerSecond)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(batchSize, forKey: .batchSize)
            try container.encode(edits, forKey: .edits)
            try container.encode(httpSeconds, forKey: .httpSeconds)
            try container.encode(httpEditsPerSecond, forKey: .httpEditsPerSecond)
            try container.encode(rawSeconds, forKey: .rawSeconds)
            try container.encode(rawRowsPerSecond, forKey: .rawRowsPerSecond)
            try container.encode(ratio, forKey: .ratio)
        }
    }

    var version = 1
    var startedAt = ISO8601DateFormatter().string(from: Date())
    var concurrency: Int
    var binary: String
    var cores = ProcessInfo.processInfo.activeProcessorCount
    var host = ProcessInfo.processInfo.operatingSystemVersionString
    var rows: [Row] = []
    /// Rows in the server's layer 0 after the HTTP runs, checked against warm-up plus measured edits.
    var verifiedRows: Int?
    var residentBytesBefore: Int?
    var residentBytesAfter: Int?
    /// RSS once a second during the sustained run.
    var residentSamples: [Int] = []
    /// The target: a batch of 1000 end to end reaches at least this share of the raw insert rate.
    var targetRatioAtBatch1000 = 0.25
    /// Single-add CPU per request of `featureload serve` against the floor server.
    var floor: FloorComparison?
    /// The 1, 5 and 15 minute load averages before and after the HTTP runs.
    var loadAverageBefore: [Double]?
    var loadAverageAfter: [Double]?
}

enum BenchmarkReport {
    /// Writes `server-batches-<time>.json` and `.md` into `directory`; returns their paths.
    static func write(_ result: BenchmarkResult, to directory: String) throws -> (String, String) {
        try writeReport(result, markdown: markdown(result), name: "server-batches", startedAt: result.startedAt, to: directory)
    }

    static func markdown(_ result: BenchmarkResult) -> String {
        func mib(_ bytes: Int?) -> String { bytes.map { String(format: "%.1f MiB", Double($0) / 1_048_576) } ?? "n/a" }
        func load(_ values: [Double]?) -> String { values.map { $0.map { String(format: "%.2f", $0) }.joined(separator: " ") } ?? "n/a" }
        var text = """
            # Server batches: applyEdits over HTTP vs raw SQLite inserts

            Run \(result.startedAt) on \(result.cores) cores (\(result.host)); client and server share them. Load average \
            (1, 5, 15 min) \(load(result.loadAverageBefore)) before, \(load(result.loadAverageAfter)) after.

            """
        if let floor = result.floor { text += floorSection(floor) }
        guard !result.rows.isEmpty else { return text }
        text += """

            HTTP: `featureload serve` (child process) ← libcurl transport, \(result.concurrency) concurrent requests, \
            rollbackOnFailure=true, point features with 4 attributes. Raw: the same table and indexes, WAL, \
            synchronous=NORMAL, one prepared statement, one transaction per batch, server idle.

            | batch | edits | HTTP edits/s | raw SQLite rows/s | HTTP / raw |
            |---:|---:|---:|---:|---:|

            """
        for row in result.rows {
            text +=
                "| \(row.batchSize) | \(row.edits) | \(Int(row.httpEditsPerSecond)) | \(Int(row.rawRowsPerSecond)) | \(String(format: "%.1f %%", 100 * row.ratio)) |\n"
        }
        if let verified = result.verifiedRows { text += "\nAll \(verified) rows verified in the server's table by a count query.\n" }
        if let thousand = result.rows.first(where: { $0.batchSize == 1000 }) {
            let verdict = thousand.ratio >= result.targetRatioAtBatch1000 ? "PASS" : "FAIL"
            text +=
                "\nTarget (batch 1000 ≥ \(Int(result.targetRatioAtBatch1000 * 100)) % of raw): **\(verdict)** (\(String(format: "%.1f %%", 100 * thousand.ratio))).\n"
        }
        text +=
            "\nServer RSS: \(mib(result.residentBytesBefore)) after warm-up, \(mib(result.residentBytesAfter)) after \(result.residentSamples.count) s of sustained load"
        if let first = result.residentSamples.first, let last = result.residentSamples.last, let peak = result.residentSamples.max() {
            text += " (first sample \(mib(first)), last \(mib(last)), peak \(mib(peak)))"
        }
        text += ".\n"
        return text
    }

    /// The single-add comparison with the floor: per round, then the totals and the verdict.
    static func floorSection(_ floor: FloorComparison) -> String {
        var text = """

            ## Single adds: featureload serve against the floor

            The server process's CPU (utime + stime) per single-add applyEdits, requests counted as rows added to its \
            database; \(floor.rounds.count) rounds of \(String(format: "%.0f", floor.secondsPerRound)) s alternating between \
            the two servers, \(floor.concurrency) requests in flight, the same libcurl client.

            | round | server | requests | CPU s | CPU µs/request |
            |---:|---|---:|---:|---:|

            """
        for (index, round) in floor.rounds.enumerated() {
            text +=
                "| \(index / 2 + 1) | \(round.server) | \(round.requests) | \(String(format: "%.2f", round.cpuSeconds)) | \(String(format: "%.1f", round.microsecondsPerRequest)) |\n"
        }
        text += "\n" + floor.summary + "\n"
        return text
    }
}
