import FeatureModel
import Foundation

/// The report of an apply (`--report PATH`): counts, speed, retries, time spent backing off, the verification.
///
/// The counts (`planned`, `applied`, `rejected`, `failed`) are the whole job's, as its journal holds them; a resumed
/// run's own share is in ``thisRun``, and the speed, requests and retries are this run's only.
package struct ApplyReport: Sendable, Codable {
    /// What this run (one `apply` or `apply --resume` process) did of the job.
    package struct ThisRun: Sendable, Codable, Equatable {
        /// Edits this run applied (the answers it received), in ``ApplyReport/seconds``.
        package var applied: Int
        /// Adds the service answered as there already (an earlier attempt or run had applied them).
        package var alreadyThere: Int
        /// Batches an earlier run left in doubt that this run settled, and their edits it found applied.
        var inDoubtBatchesSettled: Int
        package var inDoubtFoundApplied: Int
    }

    package var target: String
    package var layer: String
    package var planned: Int
    package var applied: Int
    package var rejected: Int
    package var failed: Int
    /// Input records that could not be read or did not fit the layer (sent with `--skip-invalid` aside).
    package var invalid: Int
    package var alreadyPresent: Int
    /// Deletes that found their feature gone: deleted before, or never there (a mistyped key shows here).
    package var alreadyGone: Int
    package var seconds: Double
    package var editsPerSecond: Double
    package var requests: Int
    package var retries: Int
    package var backoffSeconds: Double
    package var reconciledBatches: Int
    package var thisRun: ThisRun
    /// Seconds spent waiting for a service that could not be reached, and why the run stopped waiting, if it did.
    var serviceWaitSeconds: Double
    var stoppedBecause: String?
    /// Files planned to be attached (`--attachments`), and those attached (their feature was applied).
    package var files: Int
    var filesAttached: Int
    package var verification: JournalVerifier.Finding?
    package var rejects: String?
    var exitCode: Int

    package init(
        target: String, layer: String, planned: Int, counts: JournalCounts?, invalid: Int, summary: BatchApplier.Summary?,
        verification: JournalVerifier.Finding?, rejects: String?, status: Int, files: (planned: Int, applied: Int) = (0, 0)
    ) {
        self.files = files.planned
        filesAttached = files.applied
        self.invalid = invalid
        self.target = target
        self.layer = layer
        self.planned = planned
        applied = counts?.applied ?? 0
        rejected = counts?.rejected ?? 0
        failed = (counts?.failed ?? 0) + (counts?.unknown ?? 0)
        alreadyPresent = summary?.alreadyPresent ?? 0
        alreadyGone = summary?.alreadyGone ?? 0
        self.seconds = summary?.elapsed.seconds ?? 0
        editsPerSecond = summary?.editsPerSecond ?? 0
        requests = summary?.requests ?? 0
        retries = summary?.retries ?? 0
        backoffSeconds = summary?.backoff.seconds ?? 0
        reconciledBatches = summary?.reconciledBatches ?? 0
        thisRun = ThisRun(
            applied: summary?.settled[.applied] ?? 0, alreadyThere: summary?.alreadyPresent ?? 0,
            inDoubtBatchesSettled: summary?.reconciledBatches ?? 0, inDoubtFoundApplied: summary?.reconciledApplied ?? 0)
        serviceWaitSeconds = summary?.outageTime.seconds ?? 0
        stoppedBecause = summary?.unavailable
        self.verification = verification
        self.rejects = rejects
        exitCode = status
    }

    /// Pretty JSON with sorted keys.
    package func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    /// A Markdown table.
    package var markdown: String {
        var lines = ["# Apply: \(exitCode == 0 ? "every edit applied" : "NOT every edit applied")", "", "Target `\(target)`, layer \(layer).", ""]
        lines += [
            "The whole job, as its journal holds it:", "",
            "| planned | applied | rejected | failed | invalid |", "|---:|---:|---:|---:|---:|",
            "| \(planned) | \(applied) | \(rejected) | \(failed) | \(invalid) |", "",
            "This run\(thisRun.applied == applied ? "" : " (a resumed job: its own share)"):", "",
            "| applied | already there | in doubt settled (batches) | found applied in them | seconds | edits/s | requests | retries | backoff s |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
            "| \(thisRun.applied) | \(thisRun.alreadyThere) | \(thisRun.inDoubtBatchesSettled) | \(thisRun.inDoubtFoundApplied) | "
                + "\(String(format: "%.2f", seconds)) | \(String(format: "%.0f", editsPerSecond)) | \(requests) | \(retries) | "
                + "\(String(format: "%.2f", backoffSeconds)) |",
        ]
        if serviceWaitSeconds > 0 { lines += ["", String(format: "Waited %.1f s for the service, which could not be reached.", serviceWaitSeconds)] }
        if let stoppedBecause { lines += ["", "Stopped: \(stoppedBecause); resume the journal when the service is back."] }
        if alreadyGone > 0 { lines += ["", "Deletes that found nothing to delete (deleted before, or never there): \(alreadyGone)."] }
        if files > 0 { lines += ["", "Files attached: \(filesAttached) of \(files)."] }
        if let verification { lines += ["", "Verification: \(verification.summary)"] }
        if let rejects { lines += ["", "Rejected and failed edits: `\(rejects)`"] }
        return lines.joined(separator: "\n") + "\n"
    }
}
