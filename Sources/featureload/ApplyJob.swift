import BatchApply
import FeatureModel
import FeatureServiceClient
import Foundation
import Synchronization

/// One `apply` run against a connected target: plan (or take the journal's plan), send, write rejects, verify.
struct ApplyJob: Sendable {
    /// What a new run starts from.
    struct Start: Sendable {
        var input: String
        var format: InputFormat
        var readOptions: InputOptions
        var layer: String
        var settings: ApplySettings
        var access: JournalHeader.Access
        var to: String
        var localData: String?
        var dataset: String
        var dryRun: Bool
        var skipInvalid: Bool
    }

    enum Mode: Sendable {
        case start(Start)
        case resume(ApplyJournal, JournalHeader)
    }

    let mode: Mode
    let journalPath: String
    let targetSettings: TargetSettings
    let verify: Bool
    let rejectsPath: String
    /// How long a run waits for a service that cannot be reached (``BatchApplier/serviceWait``).
    var serviceWait: Duration = BatchApplier.defaultServiceWait
    /// Where each answered batch is also counted (`apply --metrics-listen`).
    var liveMetrics: ApplyLiveMetrics?

    /// What the run did, for the summary and the report.
    struct Result: Sendable {
        var lines: [String] = []
        var status = ExitStatus.passed
        var summary: BatchApplier.Summary?
        var counts: JournalCounts?
        /// Input records that could not be read or did not fit the layer.
        var invalid = 0
        var plan: ApplyPlanner.Summary?
        var verification: JournalVerifier.Finding?
        var rejects: RejectsWriter.Written?
        /// Files planned to be attached, and those attached.
        var files: (planned: Int, applied: Int) = (0, 0)
        var target = ""
        var layer = ""

        func writeReport(to path: String) throws {
            let report = ApplyReport(
                target: target, layer: layer, planned: counts?.planned ?? plan?.editCount ?? 0, counts: counts, invalid: invalid, summary: summary,
                verification: verification, rejects: rejects?.path, status: Int(status.rawValue), files: files)
            let text = path.hasSuffix(".md") ? report.markdown : try report.json()
            try OutputFile(path, option: "--report").write(text.utf8)
        }
    }

    func run(on connected: ConnectedTarget, display: ProgressDisplay) async throws -> Result {
        var result = Result()
        result.target = connected.serviceURL
        let service = connected.service
        // Retried as every request of the run is, and waited for as sending waits for a service out of reach.
        let retry = BatchApplier.defaultRetry
        let info = try await BatchApplier.waitingForService(serviceWait, clock: ContinuousClock()) { try await service.load(retry: retry) }
        var layers: [Int: LayerInfo] = [:]
        for id in info.layers.map(\.id) + info.tables.map(\.id) { layers[id] = try await service.layerInfo(id: id, retry: retry) }
        switch mode {
        case .start(let start):
            return try await begin(start, layers: layers, on: connected, into: result, display: display)
        case .resume(let journal, let header):
            result.layer = "\(header.layer) \(layers[header.layer]?.name ?? "")"
            return try await resume(journal, header: header, layers: layers, service: service, into: result, display: display)
        }
    }

    /// A new run: checks the input's settings against the service, then plans (a dry run stops there) and sends.
    func begin(
        _ start: Start, layers: [Int: LayerInfo], on connected: ConnectedTarget, into result: Result, display: ProgressDisplay
    ) async throws -> Result {
        var result = result
        guard let layer = Self.layer(start.layer, in: layers) else {
            let names = layers.values.sorted { $0.id < $1.id }.map { "\($0.id) \($0.name)" }.joined(separator: ", ")
            throw ApplyError.target("--layer \(start.layer): no such layer or table in \(connected.serviceURL); it has \(names)")
        }
        let inputSize = (try? FileManager.default.attributesOfItem(atPath: start.input)[.size] as? NSNumber)?.int64Value ?? 0
        var header = JournalHeader(
            input: start.input, inputSize: inputSize, target: start.to == "local" ? "local" : connected.serviceURL,
            localData: start.to == "local" ? start.localData : nil, localDataset: start.to == "local" ? start.dataset : nil, layer: layer.id,
            objectIdField: layer.objectIdField, globalIdField: layer.globalIdField ?? "GlobalID", settings: start.settings, access: start.access,
            reading: JournalHeader.Reading(format: start.format, options: start.readOptions, skipInvalid: start.skipInvalid),
            // `-` and /dev/fd/N are kept as given: they name this process's descriptors, not files in this folder.
            rejects: OutputFile(rejectsPath, option: "--rejects").isDescriptor
                ? rejectsPath : URL(fileURLWithPath: rejectsPath).standardizedFileURL.path)
        result.layer = "\(layer.id) \(layer.name)"
        try Self.check(start, layer: layer, layers: layers, serviceURL: connected.serviceURL)
        if start.dryRun { return try dryRun(start, header: header, layers: layers, into: result) }
        header.globalIds = try await globalIdScheme(header, layers: layers, service: connected.service, display: display)
        let journal = try ApplyJournal.create(at: journalPath, header: header)
        if start.skipInvalid {
            display.message("planning \(start.input) into \(journalPath), sending each batch once it is planned (--skip-invalid) …")
            do {
                return try await send(
                    header: header, layers: layers, journal: journal, service: connected.service, streamingPlan: true, into: result, display: display)
            } catch  where !(error is CancellationError) && (try? journal.anySent()) == false {
                // Nothing was sent: no journal is left to resume.
                Self.remove(journalPath)
                throw error
            }
        }
        display.message("planning \(start.input) into \(journalPath) …")
        do {
            result.plan = try makePlan(header, layers: layers, into: journal)
        } catch {
            // Nothing was sent: no journal is left to resume.
            Self.remove(journalPath)
            throw error
        }
        if let plan = result.plan { display.message(Self.describe(plan, input: start.input)) }
        return try await send(
            header: header, layers: layers, journal: journal, service: connected.service, streamingPlan: false, into: result, display: display)
    }

    /// Checks a new run's settings against `layer` and the service's `layers`: a mapping to a field the layer does not
    /// have would make every record invalid, each saying so, so it is said once; files and related records need
    /// layers that take them.
    static func check(_ start: Start, layer: LayerInfo, layers: [Int: LayerInfo], serviceURL: String) throws {
        if start.format == .csv {
            // Also names the planner takes apart from the layer's fields: the keys (as the layer or the reader
            // spells them), the kind field and the attachment key; the geometry's columns are not attributes.
            let csv = start.readOptions.csv
            let known = ApplyPlanner.keyNames(of: layer) + [start.readOptions.kindField, start.settings.attachments?.keyField].compactMap { $0 }
            let geometryColumns = [csv.x, csv.y, csv.wkt].compactMap { $0 }
            let unknown = csv.mapping.sorted { $0.key < $1.key }.filter { column, field in
                !geometryColumns.contains(column) && !known.contains { $0.caseInsensitiveEquals(field) }
                    && layer.field(named: field) == nil
            }
            if !unknown.isEmpty {
                let fields = layer.fields.map(\.name).joined(separator: ", ")
                throw ApplyError.target(
                    "--map \(unknown.map { "\($0.key)=\($0.value)" }.joined(separator: ",")): layer \(layer.id) (\(layer.name)) has no field \(unknown.map { "'\($0.value)'" }.joined(separator: ", ")); its fields are \(fields). Fix: map each column to one of them"
                )
            }
        }
        if start.settings.attachments != nil && !layers.values.contains(where: { $0.hasAttachments == true }) {
            throw ApplyError.target("--attachments: no layer of \(serviceURL) takes attachments (hasAttachments is false everywhere)")
        }
        if start.settings.related || start.settings.attachments != nil, layer.supportsApplyEditsWithGlobalIds == false {
            throw ApplyError.target(
                "layer \(layer.id) (\(layer.name)) does not support applyEdits with GlobalIDs, which --related and --attachments need to send a parent with its records and files in one request"
            )
        }
    }

    /// A dry run: plans without a journal and says what would be sent, or which records are invalid.
    func dryRun(_ start: Start, header: JournalHeader, layers: [Int: LayerInfo], into result: Result) throws -> Result {
        var result = result
        let plan = try makePlan(header, layers: layers, into: nil)
        result.plan = plan
        result.lines.append(Self.describe(plan, input: start.input))
        result.lines += plan.problems.map { "\(start.input): \($0)" }
        if plan.problemCount > plan.problems.count { result.lines.append("… and \(plan.problemCount - plan.problems.count) more problems") }
        result.lines.append(plan.problemCount == 0 ? "dry run: every edit fits layer \(result.layer); nothing was sent" : "dry run: nothing was sent")
        result.status = plan.problemCount == 0 ? .passed : .invalidInput
        return result
    }

    /// A resumed run: a plan cut short is made again (going on with sending when batches of it went out already), then
    /// the open batches are sent, those in doubt looked up first.
    func resume(
        _ journal: ApplyJournal, header: JournalHeader, layers: [Int: LayerInfo], service: FeatureService, into result: Result,
        display: ProgressDisplay
    ) async throws -> Result {
        var result = result
        if try !journal.isPlanned() {
            let size = (try? FileManager.default.attributesOfItem(atPath: header.input)[.size] as? NSNumber)?.int64Value
            guard size == header.inputSize else {
                throw ApplyError.journal(
                    "the plan was interrupted, and \(header.input) changed since (or is gone); start a new run with a new --journal")
            }
            if header.reading.skipInvalid, try journal.anySent() {
                // Batches went out while it was planned: it is made again over what the journal holds, and
                // sending goes on as batches complete.
                display.message("resuming \(journalPath): planning \(header.input) again where it was interrupted, and sending …")
                return try await send(
                    header: header, layers: layers, journal: journal, service: service, streamingPlan: true, into: result, display: display)
            }
            // The plan was cut short: nothing of it was sent, so it is made again.
            try journal.discardPlan()
            display.message("re-planning \(header.input): the last plan was interrupted before anything was sent …")
            result.plan = try makePlan(header, layers: layers, into: journal)
        }
        let counts = try journal.counts()
        // Edits of batches in doubt may prove applied once looked up: the progress then counts what is left.
        let inDoubt = try journal.openBatches().filter { $0.state == .sending }.count
        display.message(
            "resuming \(journalPath): \(counts.applied) of \(counts.planned) edits applied, \(counts.open) to go"
                + (inDoubt > 0 ? " (\(Self.counted(inDoubt, "batch")) in doubt looked up first)" : ""))
        return try await send(
            header: header, layers: layers, journal: journal, service: service, streamingPlan: false, into: result, display: display)
    }

    /// Sends the journal's batches (with `streamingPlan`, as a plan made beside it completes them), then writes the
    /// rejects and verifies.
    func send(
        header: JournalHeader, layers: [Int: LayerInfo], journal: ApplyJournal, service: FeatureService, streamingPlan: Bool, into result: Result,
        display: ProgressDisplay
    ) async throws -> Result {
        var result = result
        var keys: [Int: (objectIdField: String, globalIdField: String?)] = [:]
        for (id, layer) in layers { keys[id] = (layer.objectIdField, layer.globalIdField) }
        var applier = BatchApplier(journal: journal, service: service, settings: header.settings, keys: keys)
        applier.serviceWait = serviceWait
        applier.liveMetrics = liveMetrics
        let summary: BatchApplier.Summary
        if streamingPlan {
            summary = try await sendPlanning(applier, header: header, layers: layers, into: &result, display: display)
        } else {
            summary = try await applier.run { progress in display.show { [Self.describe(progress)] } }
        }
        display.finish()
        result.summary = summary
        let counts = try journal.counts()
        let problems = try journal.problemCount()
        result.counts = counts
        result.invalid = problems
        result.lines.append(Self.describe(summary, counts: counts, problems: problems))
        for anomaly in summary.anomalies {
            // The journal stays the truth of what was applied; the run's decisions around this event may not be.
            result.lines.append("warning: \(anomaly); the journal holds each edit's outcome, but please report this with the run's log")
        }
        result.files = try journal.attachmentCounts()
        if result.files.planned > 0 {
            result.lines.append(
                "files: \(result.files.applied) of \(result.files.planned) attached (each with its feature: a file of a refused group is not sent)")
        }
        if summary.interrupted { return result }
        if let unavailable = summary.unavailable {
            // Nothing more can be learnt from the service now: what was not applied waits for --resume.
            result.status = .failed
            result.lines.append(
                "stopped: \(unavailable); \(Self.counted(counts.open, "edit")) not applied yet. Fix: when the service is back, run `featureload apply --resume \(journalPath)`"
            )
            result.lines.append("journal: \(journalPath)")
            return result
        }
        try await conclude(header: header, journal: journal, applier: applier, counts: counts, problems: problems, into: &result)
        return result
    }

    /// Makes the plan on a thread of its own while `applier` sends its batches as they complete; records the plan in
    /// `result`. A cancelled run, or one stopped for a service out of reach, stops planning between records.
    func sendPlanning(
        _ applier: BatchApplier, header: JournalHeader, layers: [Int: LayerInfo], into result: inout Result, display: ProgressDisplay
    ) async throws -> BatchApplier.Summary {
        let journal = applier.journal
        let (ready, continuation) = AsyncStream.makeStream(of: ApplyPlanner.ReadyBatches.self)
        let stopped = Mutex(false)
        // The plan is made on a thread of its own (it blocks on reading and on the journal), handing over batches
        // as they complete; a cancelled run stops it between records.
        async let planned = withTaskCancellationHandler {
            try await Self.onThread {
                defer { continuation.finish() }
                // Checked on this one thread: sending, not planning, sets the pace here (the plan runs far ahead of
                // it), and a second checking thread only takes a core from the service when both share a machine
                // (2 % of the run's time with 100,000 points against `serve` on 2 cores).
                return try self.makePlan(
                    header, layers: layers, into: journal, checkingThreads: 1, stop: { stopped.withLock { $0 } }, ready: { continuation.yield($0) })
            }
        } onCancel: {
            stopped.withLock { $0 = true }
        }
        let summary = try await applier.run(plan: ready) { progress in display.show { [Self.describe(progress)] } }
        // Stopped for a service out of reach: planning stops too, between records.
        if summary.unavailable != nil { stopped.withLock { $0 = true } }
        do {
            let plan = try await planned
            result.plan = plan
            display.message(Self.describe(plan, input: header.input))
        } catch is CancellationError where summary.interrupted || summary.unavailable != nil {
            // Ctrl-C, or the service out of reach: the journal holds whole pages of the plan; --resume makes the rest.
        }
        return summary
    }

    /// A run that went to its end: writes the rejects, verifies when asked, and says where the journal and data are.
    func conclude(
        header: JournalHeader, journal: ApplyJournal, applier: BatchApplier, counts: JournalCounts, problems: Int, into result: inout Result
    ) async throws {
        do {
            result.rejects = try RejectsWriter.write(journal: journal, to: rejectsPath)
        } catch let error as ApplyError {
            throw error
        } catch {
            // Every outcome is in the journal already: only this file is missing, and a resume writes it.
            result.status = .failed
            result.lines.append(
                "rejects: cannot write \(rejectsPath) (\(UserMessage.describe(error, naming: rejectsPath))); the journal is consistent and holds every outcome. Fix: `featureload apply --resume \(journalPath) --rejects PATH` with a path you can write to"
            )
        }
        if let rejects = result.rejects {
            result.lines.append(
                "rejects: \(Self.counted(rejects.count, "record")) in \(rejects.path)" + (rejects.reasonsPath.map { " (reasons: \($0))" } ?? ""))
        }
        if counts.open > 0 || counts.rejected > 0 || problems > 0 { result.status = .failed }
        if verify {
            let finding = try await JournalVerifier(journal: journal, service: applier.service, retry: applier.retry).verify()
            result.verification = finding
            result.lines.append("verify: \(finding.summary)")
            if !finding.passed { result.status = .failed }
        }
        result.lines.append("journal: \(journalPath)")
        if header.target == "local", let data = header.localData {
            result.lines.append("data: \(data) (serve it with `featureload serve --data \(data) --dataset \(header.localDataset ?? "parks")`)")
        }
    }

    /// A planner that makes edits of records as `header` says: its layer, batch size, GlobalID scheme (hashed in
    /// journals that name none), related records and unknown fields. Files to attach are the caller's to add.
    static func planner(for header: JournalHeader, layers: [Int: LayerInfo]) -> ApplyPlanner {
        var planner = ApplyPlanner(layers: layers, defaultLayer: header.layer, batchSize: header.settings.batchSize)
        planner.globalIdScheme = header.globalIds ?? .hashed
        planner.related = header.settings.related
        planner.dropUnknownFields = header.settings.dropUnknownFields
        return planner
    }

    /// Reads the input as `header` records it and plans it into `journal` (nil: only checks it). Records what the
    /// reader learnt for the rejects file, and marks the plan complete. Records are checked on `checkingThreads` threads
    /// (nil: the planner's default, one per core).
    /// - Throws: ``ApplyError/invalidInput(_:file:total:)`` when a record is invalid and invalid records are not skipped
    ///   (only with a journal: a dry run reports them); the reader's and the journal's errors.
    func makePlan(
        _ header: JournalHeader, layers: [Int: LayerInfo], into journal: ApplyJournal?, checkingThreads: Int? = nil, stop: () -> Bool = { false },
        ready: @escaping @Sendable (ApplyPlanner.ReadyBatches) -> Void = { _ in }
    ) throws -> ApplyPlanner.Summary {
        let reading = header.reading
        var reader = try InputFile.open(path: header.input, format: reading.format, options: reading.options)
        let skipInvalid = reading.skipInvalid
        var planner = Self.planner(for: header, layers: layers)
        if let checkingThreads { planner.checkingThreads = checkingThreads }
        if let matching = header.settings.attachments {
            planner.attachments = (try AttachmentDirectory(matching.directory), matching.keyField)
            planner.uploadThreshold = matching.uploadThreshold
        }
        let plan = try planner.plan(&reader, into: journal, recordProblems: skipInvalid, stop: stop, ready: ready)
        guard let journal else { return plan }
        if plan.problemCount > 0 && !skipInvalid { throw ApplyError.invalidInput(plan.problems, file: header.input, total: plan.problemCount) }
        var learnt = header
        learnt.reading.rejectsHeader = reader.rejectsHeader
        try journal.update(learnt)
        try journal.finishPlan()
        return plan
    }

    /// Runs `body` on a thread of its own, keeping a long blocking job off the tasks' shared threads.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Swift.Result { try body() }) }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// The layer or table named by `text`: its id, or its name (case-insensitive).
    static func layer(_ text: String, in layers: [Int: LayerInfo]) -> LayerInfo? {
        if let id = Int(text) { return layers[id] }
        return layers.values.first { $0.name.lowercased() == text.lowercased() }
    }

    static func remove(_ journalPath: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: journalPath + suffix) }
    }
}
