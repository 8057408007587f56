import FeatureServiceClient
import Foundation
import Synchronization

/// Where `run --out csv=FILE` or `--out json=FILE` streams one line per HTTP request, as k6's CSV and JSON outputs
/// do, for people's own analysis. A name ending in `.gz` is written gzip-compressed.
package struct RawSampleDestination: Sendable, Hashable, CustomStringConvertible {
    package enum Format: String, Sendable, CaseIterable {
        /// A header line, then comma-separated values (RFC 4180 quoting).
        case csv
        /// One JSON object a line (NDJSON).
        case json
    }

    package var format: Format
    package var path: String

    package init(format: Format, path: String) {
        self.format = format
        self.path = path
    }

    /// `csv=FILE` or `json=FILE`; nil for any other text (which `--out` takes as the reports' directory).
    package init?(option text: String) {
        guard let equals = text.firstIndex(of: "="), let format = Format(rawValue: String(text[..<equals])) else { return nil }
        let path = String(text[text.index(after: equals)...])
        guard !path.isEmpty else { return nil }
        self.init(format: format, path: path)
    }

    /// Whether the file is written gzip-compressed (its name ends in `.gz`).
    var isCompressed: Bool { path.hasSuffix(".gz") }

    package var description: String { "\(format.rawValue)=\(path)" }

    /// The columns of every line, in order (the CSV header; the JSON objects' keys).
    package static let columns = [
        "timestamp", "scenario", "operation", "status", "failed", "duration_ms", "server_ms", "bytes_sent", "bytes_received",
        "edits", "edits_failed", "edits_unknown", "retries", "tags",
    ]
}

/// One finished iteration's requests, waiting to be written: what the lines need of its sample, and the labels of
/// its scenario and operation.
struct RawSampleBatch: Sendable {
    var labels: RawSampleLabels
    var requests: [RequestSample]
    var edits: Int
    var editsFailed: Int
    var editsUnknown: Int
    var retries: Int

    init(labels: RawSampleLabels, sample: IterationSample) {
        self.labels = labels
        requests = sample.requests
        edits = sample.editsApplied
        editsFailed = sample.editsFailed
        editsUnknown = sample.editsUnknown
        retries = sample.retries
    }
}

/// The parts of a line that are the same for every request of one operation of one scenario, formatted once when the
/// scenario starts: its names and its tags, escaped for each format.
final class RawSampleLabels: Sendable {
    /// `scenario,operation,` (CSV-quoted where needed).
    let csvNames: [UInt8]
    /// `,tags` and the line break.
    let csvTags: [UInt8]
    /// `,"scenario":"…","operation":"…"`.
    let jsonNames: [UInt8]
    /// `,"tags":{…}}` and the line break.
    let jsonTags: [UInt8]

    init(scenario: String, operation: String, tags: [String: String]) {
        let sorted = tags.sorted { $0.key < $1.key }
        var csvNames: [UInt8] = []
        RawSampleLine.csvText(scenario, to: &csvNames)
        csvNames.append(UInt8(ascii: ","))
        RawSampleLine.csvText(operation, to: &csvNames)
        csvNames.append(UInt8(ascii: ","))
        self.csvNames = csvNames
        // k6's extra_tags form: key=value pairs joined by &, each part percent-encoded where it holds & = % or a break.
        var csvTags: [UInt8] = [UInt8(ascii: ",")]
        RawSampleLine.csvText(
            sorted.map { RawSampleLine.tagPart($0.key) + "=" + RawSampleLine.tagPart($0.value) }.joined(separator: "&"), to: &csvTags)
        csvTags.append(UInt8(ascii: "\n"))
        self.csvTags = csvTags
        var jsonNames = Array(#","scenario":"#.utf8)
        RawSampleLine.jsonText(scenario, to: &jsonNames)
        jsonNames += #","operation":"#.utf8
        RawSampleLine.jsonText(operation, to: &jsonNames)
        self.jsonNames = jsonNames
        var jsonTags = Array(#","tags":{"#.utf8)
        for (index, tag) in sorted.enumerated() {
            if index > 0 { jsonTags.append(UInt8(ascii: ",")) }
            RawSampleLine.jsonText(tag.key, to: &jsonTags)
            jsonTags.append(UInt8(ascii: ":"))
            RawSampleLine.jsonText(tag.value, to: &jsonTags)
        }
        jsonTags += "}}\n".utf8
        self.jsonTags = jsonTags
    }
}

/// Streams every request of a run to the ``RawSampleDestination``s in the background.
///
/// The VU tasks only append each finished iteration to a buffer under a lock (``append(_:)``); the flusher
/// (``flush(every:on:)``, a child task of the run beside its scenarios, on the run's clock) takes the buffer every
/// 200 ms, formats the lines and writes them, so the generator's hot path does no formatting and no I/O.
/// ``finish()`` writes anything left and closes the files.
package final class RawSampleWriter: Sendable {
    private let pending = Mutex<[RawSampleBatch]>([])
    private let files: Mutex<[RawSampleFile]>
    private let failure = Mutex<String?>(nil)
    /// The wall time of `anchor`, in microseconds since 1970: timestamps are the requests' starts on this clock.
    private let anchorWallMicroseconds: Int64
    private let anchor: ContinuousClock.Instant

    /// Opens every destination's file for writing (a regular one created or truncated; a FIFO, a device or a link
    /// written into, not replaced) and writes the CSV headers.
    /// - Parameter standardOutput: The descriptor `-` and `/dev/stdout` write to (1 unless the command moved its
    ///   own lines off standard output).
    /// - Throws: ``LoadRunnerError`` naming the option and the file when one cannot be opened.
    package init(destinations: [RawSampleDestination], standardOutput: Int32 = 1) throws {
        var opened: [RawSampleFile] = []
        for destination in destinations {
            opened.append(try RawSampleFile(destination, standardOutput: standardOutput))
        }
        files = Mutex(opened)
        anchor = ContinuousClock.now
        anchorWallMicroseconds = Int64((Date().timeIntervalSince1970 * 1_000_000).rounded())
    }

    /// The flusher: writes what the VUs queued every `interval` of `clock` until its task is cancelled, then what is
    /// left. The run's task group runs it beside the scenarios (``ScenarioRunner/run(onEvent:)``), so it lasts as long
    /// as the load and keeps the run's time, injected clock included.
    func flush(every interval: Duration = .milliseconds(200), on clock: some Clock<Duration>) async {
        while (try? await clock.sleep(for: interval)) != nil {
            flush()
        }
        flush()
    }

    /// Queues a finished iteration's requests (called from the VU tasks: an append under a lock, nothing more).
    func append(_ batch: RawSampleBatch) {
        guard !batch.requests.isEmpty else { return }
        pending.withLock { $0.append(batch) }
    }

    /// Writes what is left (nothing, once a run's flusher has ended) and closes the files.
    /// - Throws: ``LoadRunnerError`` naming the file when a write failed during the run or now.
    package func finish() async throws {
        flush()
        files.withLock { files in
            for index in files.indices {
                do {
                    try files[index].close()
                } catch {
                    failure.withLock { $0 = $0 ?? "\(files[index].destination.path): \(error)" }
                }
            }
        }
        if let message = failure.withLock({ $0 }) {
            throw LoadRunnerError("could not write the request samples to \(message)")
        }
    }

    /// Writes the lines of `part`, a generator's file of destination `index`'s format (plain, its CSV header
    /// first), to destination `index`: how `run --generators N` joins its generators' files into the one asked for.
    /// - Throws: ``LoadRunnerError`` naming the file when `part` cannot be read or the destination written.
    package func appendPart(_ part: String, toDestination index: Int) throws {
        guard let input = FileHandle(forReadingAtPath: part) else {
            throw LoadRunnerError("could not read the generator's request samples at \(part)")
        }
        defer { try? input.close() }
        try files.withLock { files in
            var first = files[index].destination.format == .csv
            while let data = try input.read(upToCount: 1 << 20), !data.isEmpty {
                var bytes = [UInt8](data)
                if first, let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) {
                    bytes.removeSubrange(...newline)
                    first = false
                }
                try files[index].write(bytes)
            }
        }
    }

    /// Formats and writes what the VUs queued since the last flush.
    private func flush() {
        let batches = pending.withLock { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        guard !batches.isEmpty else { return }
        files.withLock { files in
            for index in files.indices {
                var lines: [UInt8] = []
                lines.reserveCapacity(batches.count * 160)
                for batch in batches {
                    RawSampleLine.append(batch, format: files[index].destination.format, to: &lines, clock: (anchor, anchorWallMicroseconds))
                }
                do {
                    try files[index].write(lines)
                } catch {
                    failure.withLock { $0 = $0 ?? "\(files[index].destination.path): \(error)" }
                }
            }
        }
    }
}

/// One destination's open file, compressing when its name ends in `.gz`: written into what the path names
/// (``OutputFile/Stream``), so a FIFO, `/dev/null` or a link stays what it is, and `-` is standard output.
final class RawSampleFile {
    let destination: RawSampleDestination
    private let stream: OutputFile.Stream
    private let gzip: GzipStream?

    /// - Parameter standardOutput: The descriptor `-` and `/dev/stdout` write to.
    init(_ destination: RawSampleDestination, standardOutput: Int32) throws {
        self.destination = destination
        let file = OutputFile(destination.path, option: "--out \(destination.format.rawValue)=")
        if case .replaced = file.destination {
            // Its folder is made as the reports' is (`--out perf --out csv=perf/requests.csv` on a fresh checkout).
            let folder = URL(fileURLWithPath: destination.path).deletingLastPathComponent()
            guard (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) != nil else {
                throw LoadRunnerError(
                    "--out \(destination): cannot create \(destination.path) (may its folder be made and written to?)")
            }
        }
        do {
            stream = try file.openStream(standardOutput: standardOutput)
        } catch {
            throw LoadRunnerError(error.description)
        }
        gzip = destination.isCompressed ? GzipStream() : nil
        if destination.isCompressed && gzip == nil { throw LoadRunnerError("--out \(destination): zlib could not start a gzip stream") }
        if destination.format == .csv {
            try write(Array((RawSampleDestination.columns.joined(separator: ",") + "\n").utf8))
        }
    }

    func write(_ bytes: [UInt8]) throws {
        guard let gzip else {
            try stream.write(bytes)
            return
        }
        try gzip.write(bytes) { try stream.write($0) }
    }

    func close() throws {
        try gzip?.finish { try stream.write($0) }
        try stream.close()
    }
}
