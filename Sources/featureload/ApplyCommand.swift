import ArgumentParser
import BatchApply
import FeatureServiceClient
import Foundation
import LoadRunner
import Logging
import Prometheus

/// `featureload apply`: a file of edits into a feature service, in parallel batches, exactly once, resumable.
struct ApplyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Apply a file of edits to a feature service in parallel batches, exactly once, resumable.",
        discussion: """
            Reads GeoJSON (a FeatureCollection, or newline-delimited .geojsonl/.ndjson), Esri JSON (a feature set, \
            an applyEdits body {adds, updates, deletes}, or service-level edits [{id, adds, …}]), CSV (--map, --x/--y \
            or --wkt) or a GeoPackage (--table). Every record is checked against the layer first (field types, \
            domains, required fields, keys); by default nothing is sent if any record is invalid, and every problem \
            is listed with its position. --skip-invalid sends the rest and writes the invalid records to the \
            rejects file; it also sends each batch as soon as it is planned, while the rest of the input is read.

            The plan (every edit with its batch, position and client GlobalID) goes into the journal, an SQLite \
            file, before anything is sent, and each outcome after. Adds carry GlobalIDs (the input's, or derived \
            from the record), so a retried request never adds a feature twice, and applying the same file again \
            adds nothing that is already there. After a crash, kill -9 or Ctrl-C, `featureload apply --resume \
            JOURNAL` goes on: batches in doubt are looked up by GlobalID before anything of them is sent again.

            Every edit ends applied (with its objectId), rejected by the service (code and description; not \
            retried) or failed after retries. Rejected and failed edits are written to the rejects file in the \
            input's own format, with their reasons beside it (<rejects>.reasons.tsv).

            Related records and attachments: with --related, an add keyed to a parent added by the same input (its \
            key field holds the parent's key, as the service's relationships say: service-level Esri JSON names each \
            record's layer) goes with its parent in one atomic service-level applyEdits, a deep insert. With \
            --attachments DIR --attachment-key FIELD, the files DIR/VALUE.*, DIR/VALUE_*.* and DIR/VALUE/* of a \
            record whose FIELD is VALUE are attached in the same request (larger than --upload-threshold through the \
            service's uploads). A parent, its children and its files arrive together or not at all: a group the \
            service refuses is rejected whole, with the reason on every record of it.

            --to local applies to the embedded service over an SQLite file (--data, default <input>.sqlite), which \
            `featureload serve --data FILE --dataset NAME` serves afterwards.

            Exit codes: 0 every edit applied; 1 some edits were rejected or failed, or invalid records were skipped \
            (--skip-invalid; all are in the rejects file), or --verify found a mismatch, or the service could not be \
            reached for --wait-for-service (the journal is consistent: resume it); 2 invalid input or the run could \
            not start; 64 usage error; 130 interrupted (the journal is consistent: resume it).

            A service that cannot be reached (no connection, timeouts, HTTP 502, 503 or 504 once a batch's \
            retries gave up) or that keeps throttling (HTTP 429 through all of them) pauses the run instead of failing batch after batch: nothing new is sent, the service \
            is probed until it answers, and the batches it stopped go again (looked up by GlobalID first when an \
            attempt may have reached it). After --wait-for-service (default 15m) the run stops with exit code 1. \
            The wait counts from the first request that failed, and the requests then in flight finish their own \
            retries first, so a short wait can end later than it says.

            --metrics-listen HOST:PORT serves Prometheus metrics at http://HOST:PORT/metrics while the apply runs \
            (requests, edits applied, failed and unknown, retries and batches, by layer, as each batch is answered); \
            --metrics-linger D keeps it up D afterwards; --run-id labels the series.

            Examples:
              featureload apply parks.geojson --to local --layer 0
              featureload apply edits.csv \\
                  --to https://host/arcgis/rest/services/Parks/FeatureServer \\
                  --layer Parks --map name=NAME,st=STATE --x lon --y lat \\
                  --token-env ARCGIS_TOKEN --batch-size 1000 --concurrency 8
              featureload apply --resume parks.geojson.journal
            """
    )

    @Argument(help: ArgumentHelp("The file of edits (.geojson, .geojsonl, .json, .csv, .gpkg).", valueName: "input"))
    var input: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "`local`, or the URL of a live …/FeatureServer (or of one of its layers, …/FeatureServer/ID, which also gives --layer).",
            valueName: "local|url"))
    var to: String?

    @Option(name: .long, help: ArgumentHelp("The layer or table: its id or its name.", valueName: "id|name"))
    var layer: String?

    @Option(name: .long, help: ArgumentHelp("Continue the run of this journal (--concurrency and --rate may change its pace).", valueName: "journal"))
    var resume: String?

    @Option(name: .long, help: ArgumentHelp("The journal's path. Default: <input file name>.journal here.", valueName: "path"))
    var journal: String?

    @Option(name: .long, help: ArgumentHelp("Edits per applyEdits request (default 500).", valueName: "n"))
    var batchSize: Int?

    @Option(name: .long, help: ArgumentHelp("Requests in flight at once (default 4).", valueName: "n"))
    var concurrency: Int?

    @Option(name: .long, help: ArgumentHelp("At most this many edits per second (default: as fast as the service answers).", valueName: "edits/s"))
    var rate: Double?

    @Flag(name: .long, help: "One failed edit rolls its whole batch back (rollbackOnFailure=true). Default: each edit on its own.")
    var rollbackOnFailure = false

    @Flag(name: .long, help: "Send each add keyed to a parent in the same input with its parent, all or nothing (a deep insert).")
    var related = false

    @Flag(name: .long, help: "Leave out attributes (properties, columns) the layer has no field for, rather than refusing their records.")
    var dropUnknownFields = false

    @Option(
        name: .long, help: ArgumentHelp("Attach the files in this directory to the adds they are named for (see --attachment-key).", valueName: "dir")
    )
    var attachments: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The input attribute whose value VALUE names a record's files: DIR/VALUE.*, DIR/VALUE_*.*, DIR/VALUE/*.", valueName: "field"))
    var attachmentKey: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Attachments larger than this many bytes go through the service's uploads (default 10000000).", valueName: "bytes"))
    var uploadThreshold: Int64?

    @Flag(name: .long, help: "Check every edit against the layer and report every problem; send nothing.")
    var dryRun = false

    @Flag(
        name: .long,
        help:
            "Send the valid records, each batch as soon as it is planned, and write the invalid ones to the rejects file (default: check the whole input first and send nothing if any is invalid)."
    )
    var skipInvalid = false

    @Option(name: .long, help: ArgumentHelp("Where rejected and failed edits go. Default: <input file name>.rejects.<ext> here.", valueName: "path"))
    var rejects: String?

    @Option(name: .long, help: ArgumentHelp("Write a report: .json or .md by the extension.", valueName: "path"))
    var report: String?

    @Flag(name: .long, help: "Afterwards, query the service: every applied add there once, nothing that failed there, every delete gone.")
    var verify = false

    @OptionGroup(title: "Input") var inputOptions: ApplyInputOptions

    @Option(name: .long, help: ArgumentHelp("For --to local: the embedded service's dataset (default parks).", valueName: "name"))
    var dataset: String?

    @Flag(name: .long, help: "Print only the outcome, not progress.")
    var quiet = false

    @Option(
        name: .long,
        help: ArgumentHelp("How often to print progress lines when standard output is not a terminal (default 10s).", valueName: "duration"),
        transform: ProgressDisplay.interval)
    var progressInterval: Duration = .seconds(10)

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How long to wait for a service that cannot be reached (no connection, timeouts, HTTP 502/503/504, or throttling: 429) before stopping, resumable; meanwhile nothing is sent and the service is probed (default 15m; 0 fails the batches instead).",
            valueName: "duration"),
        transform: ApplyCommand.serviceWait)
    var waitForService: Duration = BatchApplier.defaultServiceWait

    @OptionGroup var targetOptions: TargetOptions
    @OptionGroup var metricsOptions: LiveMetricsOptions
    @OptionGroup var logging: LoggingOptions

    /// `0`, or a duration above 0 (`90s`, `15m`, `2h`).
    static func serviceWait(_ text: String) throws -> Duration {
        if text.trimmingCharacters(in: .whitespaces) == "0" { return .zero }
        return try DurationOption.parse(text, option: "--wait-for-service", allowZero: true, examples: "0, 90s, 15m or 2h")
    }

    func validate() throws {
        if let resume {
            let given =
                [
                    ("input", input != nil), ("--to", to != nil), ("--layer", layer != nil), ("--journal", journal != nil),
                    ("--batch-size", batchSize != nil),
                    ("--rollback-on-failure", rollbackOnFailure),
                    ("--dry-run", dryRun), ("--skip-invalid", skipInvalid), ("--dataset", dataset != nil), ("--related", related),
                    ("--drop-unknown-fields", dropUnknownFields),
                    ("--attachments", attachments != nil), ("--attachment-key", attachmentKey != nil), ("--upload-threshold", uploadThreshold != nil),
                ].filter(\.1).map(\.0) + inputOptions.given
            if !given.isEmpty {
                throw ValidationError(
                    "--resume \(resume) continues a run as its journal recorded it; leave out \(given.joined(separator: ", ")) (start a new run with a new --journal to change them)"
                )
            }
        } else {
            guard input != nil else { throw ValidationError("give the input file, or --resume JOURNAL") }
            guard to != nil else { throw ValidationError("give --to local or --to https://…/FeatureServer") }
            if let to, let (_, id) = Self.layerURL(to) {
                // A layer's URL, as users copy it from a browser: the service and the layer in one.
                if let layer, layer != id {
                    throw ValidationError("--to \(to) names layer \(id), and --layer says \(layer); give one of them")
                }
            } else {
                guard layer != nil else { throw ValidationError("give --layer with the id or name of the layer to edit") }
            }
        }
        if let batchSize, !(1...10_000).contains(batchSize) { throw ValidationError("--batch-size must be 1…10000, got \(batchSize)") }
        if let concurrency, !(1...256).contains(concurrency) { throw ValidationError("--concurrency must be 1…256, got \(concurrency)") }
        if let rate, !(rate >= 0.01) || !rate.isFinite {
            throw ValidationError("--rate must be a number of edits per second, 0.01 or more (leave it out for no limit), got \(rate)")
        }
        if (attachments == nil) != (attachmentKey == nil) {
            throw ValidationError(
                "--attachments DIR and --attachment-key FIELD go together: the directory of the files, and the attribute that names them")
        }
        if uploadThreshold != nil && attachments == nil {
            throw ValidationError("--upload-threshold is for --attachments; give that too, or leave it out")
        }
        if let uploadThreshold, uploadThreshold < 0 { throw ValidationError("--upload-threshold must be 0 or more bytes, got \(uploadThreshold)") }
        if let report, !(report.hasSuffix(".json") || report.hasSuffix(".md")) {
            throw ValidationError("--report \(report): end the path in .json or .md to say which to write")
        }
    }

    func run() async throws {
        let logger = logging.makeLogger(label: "featureload.apply")
        let serverLogger = LoggingOptions.serverLogger(beside: logger)
        let job: ApplyJob
        let metrics: (endpoint: MetricsEndpoint, factory: PrometheusMetricsFactory)?
        do {
            var made = try makeJob()
            metrics = try await metricsOptions.start(logger: logger)
            made.liveMetrics = metrics.map { ApplyLiveMetrics(factory: $0.factory, runId: metricsOptions.resolvedRunId(startAt: nil)) }
            job = made
        } catch {
            printError("featureload apply: \(UserMessage.describe(error))")
            throw ExitStatus.invalidInput.code
        }
        if job.targetSettings.tls.isInsecure { printError("featureload apply: warning: TLS certificates are not verified (--insecure)") }
        let display = ProgressDisplay(mode: ProgressDisplay.automatic(quiet: quiet, interval: progressInterval))
        let finished: ApplyJob.Result
        let interrupted: Bool
        do {
            (finished, interrupted) = try await InterruptSignals.cancellingWork {
                try await withTarget(job.targetSettings, serverLogger: serverLogger) { connected in
                    try await job.run(on: connected, display: display)
                }
            }
        } catch let error as ExitCode {
            throw error
        } catch is CancellationError {
            display.finish()
            printError("featureload apply: interrupted; resume with `featureload apply --resume \(job.journalPath)`")
            throw ExitStatus.interrupted.code
        } catch {
            display.finish()
            printError("featureload apply: \(UserMessage.describe(error))")
            throw ExitStatus.invalidInput.code
        }
        display.finish()
        try await metricsOptions.lingering(metrics?.endpoint) { try conclude(finished, interrupted: interrupted, journalPath: job.journalPath) }
    }

    /// Prints the outcome, writes the report, and exits by the outcome.
    private func conclude(_ finished: ApplyJob.Result, interrupted: Bool, journalPath: String) throws {
        var result = finished
        if interrupted || result.summary?.interrupted == true { result.status = .interrupted }
        for line in result.lines { print(line) }
        if let report {
            do {
                try result.writeReport(to: report)
            } catch {
                printError(
                    "featureload apply: cannot write the report \(report) (\(UserMessage.describe(error, naming: report))); the journal is consistent. Fix: give --report a path you can write to"
                )
                if result.status == .passed { result.status = .failed }
            }
        }
        if result.status == .interrupted {
            print("interrupted: resume with `featureload apply --resume \(journalPath)`")
            throw ExitStatus.interrupted.code
        }
        switch result.status {
        case .passed: return
        default: throw result.status.code
        }
    }

    /// The job the command line describes: a new run, or the resumption of a journal's.
    func makeJob() throws -> ApplyJob {
        if let resume {
            let journal = try ApplyJournal.open(at: resume)
            var header = try journal.header()
            // The pace may change on resume (to spare a struggling service, say); the plan may not. The journal keeps
            // the pace of its latest run, once the target resolves.
            if let concurrency { header.settings.concurrency = concurrency }
            if let rate { header.settings.rate = rate }
            var options = targetOptions
            if header.target == "local" {
                if let data = options.data, let recorded = header.localData, URL(fileURLWithPath: data).standardizedFileURL.path != recorded {
                    throw TargetError("--data \(data): the journal's run applied to \(recorded); resume it there (leave --data out)")
                }
                options.data = header.localData
            }
            let settings = try TargetResolution.settings(
                to: header.target, dataset: header.localDataset ?? "parks", options: options, recorded: header.access,
                concurrency: header.settings.concurrency)
            let rejectsPath = rejects ?? header.rejects ?? Self.rejectsPath(for: header)
            try checkOutputs(rejectsPath: rejectsPath, input: header.input, journal: resume, data: header.target == "local" ? header.localData : nil)
            if concurrency != nil || rate != nil { try journal.update(header) }
            return ApplyJob(
                mode: .resume(journal, header), journalPath: resume, targetSettings: settings, verify: verify, rejectsPath: rejectsPath,
                serviceWait: waitForService)
        }
        let input = self.input ?? ""
        // …/FeatureServer/ID names the service and the layer.
        var (to, layer) = (self.to, self.layer)
        if let given = to, let (service, id) = Self.layerURL(given) { (to, layer) = (service, id) }
        guard FileManager.default.isReadableFile(atPath: input) else {
            throw TargetError("cannot read the input \(input). Fix: give the path of a file of edits")
        }
        let format = try inputOptions.format ?? InputFormat.detect(path: input)
        let readOptions = try inputOptions.readOptions()
        let name = URL(fileURLWithPath: input).lastPathComponent
        let journalPath = journal ?? name + ".journal"
        var options = targetOptions
        if to == "local", options.data == nil { options.data = name + ".sqlite" }
        // A dry run changes nothing: with no data file there yet, the embedded service it checks against starts over a
        // temporary one, rather than making (and seeding) the file a real run names.
        if dryRun, to == "local", let data = options.data, !FileManager.default.fileExists(atPath: data) { options.data = nil }
        var matching: AttachmentMatching?
        if let attachments, let attachmentKey {
            matching = AttachmentMatching(
                directory: URL(fileURLWithPath: attachments).standardizedFileURL.path, keyField: attachmentKey,
                uploadThreshold: uploadThreshold ?? AttachmentMatching(directory: "", keyField: "").uploadThreshold)
            // Indexed now so a wrong path fails before anything starts.
            _ = try AttachmentDirectory(matching?.directory ?? attachments)
        }
        let applySettings = ApplySettings(
            batchSize: batchSize ?? ApplySettings().batchSize, concurrency: concurrency ?? ApplySettings().concurrency, rate: rate,
            rollbackOnFailure: rollbackOnFailure, related: related, attachments: matching, dropUnknownFields: dropUnknownFields)
        let settings = try TargetResolution.settings(
            to: to ?? "local", dataset: dataset ?? "parks", options: options, concurrency: applySettings.concurrency)
        let access = JournalHeader.Access(
            tokenEnv: targetOptions.tokenEnv, usernameEnv: targetOptions.usernameEnv, passwordEnv: targetOptions.passwordEnv,
            tokenURL: targetOptions.tokenURL, caFile: targetOptions.caFile.map { URL(fileURLWithPath: $0).path }, insecure: targetOptions.insecure)
        let start = ApplyJob.Start(
            input: URL(fileURLWithPath: input).standardizedFileURL.path, format: format, readOptions: readOptions, layer: layer ?? "0",
            settings: applySettings, access: access, to: to ?? "local",
            localData: options.data.map { URL(fileURLWithPath: $0).standardizedFileURL.path },
            dataset: dataset ?? "parks", dryRun: dryRun, skipInvalid: skipInvalid)
        let rejectsPath = rejects ?? name + ".rejects." + RejectsWriter.fileExtension(for: format)
        try checkOutputs(rejectsPath: rejectsPath, input: input, journal: journalPath, data: to == "local" ? options.data : nil)
        return ApplyJob(
            mode: .start(start), journalPath: journalPath, targetSettings: settings, verify: verify, rejectsPath: rejectsPath,
            serviceWait: waitForService)
    }

    /// Refuses a rejects file (or its reasons file) or report that is the input, the journal or the data file, or
    /// one another.
    /// - Throws: ``TargetError`` naming the option.
    func checkOutputs(rejectsPath: String, input: String, journal: String, data: String?) throws {
        var outputs = [OutputFile(rejectsPath, option: "--rejects"), OutputFile(rejectsPath + ".reasons.tsv", option: "--rejects")]
        if let report { outputs.append(OutputFile(report, option: "--report")) }
        var kept = [(what: "the input", path: input)]
        for suffix in ["", "-wal", "-shm"] { kept.append((what: "the journal", path: journal + suffix)) }
        if let data { for suffix in ["", "-wal", "-shm"] { kept.append((what: "the data file", path: data + suffix)) } }
        try OutputPaths.check(outputs, against: kept, command: "apply")
    }

    /// The service URL and layer id of a layer's URL (`…/FeatureServer/3`); nil for anything else.
    static func layerURL(_ text: String) -> (service: String, layer: String)? {
        let url = TargetResolution.bareURL(text)
        guard let slash = url.lastIndex(of: "/") else { return nil }
        let id = url[url.index(after: slash)...]
        let service = String(url[..<slash])
        guard !id.isEmpty, id.allSatisfy({ $0.isASCII && $0.isNumber }), service.lowercased().hasSuffix("/featureserver") else { return nil }
        return (service, String(id))
    }

    static func rejectsPath(for header: JournalHeader) -> String {
        URL(fileURLWithPath: header.input).lastPathComponent + ".rejects." + RejectsWriter.fileExtension(for: header.reading.format)
    }
}
