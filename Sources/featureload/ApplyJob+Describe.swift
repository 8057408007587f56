import BatchApply
import FeatureModel
import Foundation

/// The lines an `apply` run shows: progress, the plan, the summary.
extension ApplyJob {
    /// `1200/6000 edits (20%)  3512 edits/s  ETA 2s  applied 1200  rejected 0  failed 0  retries 3`; while the input is
    /// still being planned, `1200/6000+ edits (planning)  3512 edits/s  applied 1200 …`.
    static func describe(_ progress: BatchApplier.Progress) -> String {
        if let unavailable = progress.unavailable {
            return
                "\(progress.settled)/\(progress.total) edits  waiting for the service, which cannot be reached (\(unavailable)); no batch is sent meanwhile"
        }
        let seconds = progress.elapsed.seconds
        let rate = seconds > 0 ? Double(progress.settled) / seconds : 0
        if progress.planning {
            return String(
                format: "%d/%d+ edits (planning)  %.0f edits/s  applied %d  rejected %d  failed %d  retries %d", progress.settled, progress.total,
                rate,
                progress.applied, progress.rejected, progress.failed, progress.retries)
        }
        let percent = progress.total > 0 ? Double(progress.settled) * 100 / Double(progress.total) : 100
        let remaining = rate > 0 ? Double(progress.total - progress.settled) / rate : 0
        return String(
            format: "%d/%d edits (%.0f%%)  %.0f edits/s  ETA %@  applied %d  rejected %d  failed %d  retries %d", progress.settled, progress.total,
            percent,
            rate, Self.eta(remaining), progress.applied, progress.rejected, progress.failed, progress.retries)
    }

    static func eta(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        return whole >= 3600
            ? "\(whole / 3600)h\(String(format: "%02d", whole % 3600 / 60))m"
            : whole >= 60 ? "\(whole / 60)m\(String(format: "%02d", whole % 60))s" : "\(whole)s"
    }

    /// `count` and `noun`, plural unless the count is one: "1 batch", "2 batches", "3 retries".
    static func counted(_ count: Int, _ noun: String) -> String {
        if count == 1 { return "1 \(noun)" }
        if noun.hasSuffix("ch") { return "\(count) \(noun)es" }
        if noun.hasSuffix("y") { return "\(count) \(noun.dropLast())ies" }
        return "\(count) \(noun)s"
    }

    static func describe(_ plan: ApplyPlanner.Summary, input: String) -> String {
        let kinds = [InputEdit.Kind.add, .update, .delete].compactMap { kind in plan.edits[kind].map { counted($0, kind.rawValue) } }
        var line =
            "planned \(counted(plan.editCount, "edit")) (\(kinds.isEmpty ? "none" : kinds.joined(separator: ", "))) in \(counted(plan.batches, "batch")) from \(counted(plan.records, "record"))"
        if plan.groups > 0 {
            line += "; \(counted(plan.groups, "group")) sent whole"
            if plan.attachments > 0 { line += " with \(counted(plan.attachments, "file"))" }
        }
        if plan.problemCount > 0 { line += "; \(counted(plan.problemCount, "record")) invalid" }
        return line
    }

    static func describe(_ summary: BatchApplier.Summary, counts: JournalCounts, problems: Int) -> String {
        let seconds = summary.elapsed.seconds
        var parts = [
            "applied \(counts.applied) of \(counted(counts.planned, "edit"))", "rejected \(counts.rejected)",
            "failed \(counts.failed + counts.unknown)",
        ]
        // A resumed run: the counts are the journal's, the rate this run's.
        let appliedNow = summary.settled[.applied] ?? 0
        if appliedNow != counts.applied { parts[0] += " (\(appliedNow) in this run)" }
        if problems > 0 { parts.append("invalid \(problems)") }
        var line = parts.joined(separator: ", ")
        line += String(format: " in %.2f s (%.0f edits/s); ", seconds, summary.editsPerSecond)
        line += "\(counted(summary.requests, "request")), \(counted(summary.retries, "retry"))"
        line += String(format: ", %.2f s backing off", summary.backoff.seconds)
        if summary.alreadyPresent > 0 {
            line +=
                "; \(counted(summary.alreadyPresent, "add")) \(summary.alreadyPresent == 1 ? "was" : "were") found applied already (by an earlier attempt or run)"
        }
        if summary.alreadyGone > 0 {
            line += "; \(counted(summary.alreadyGone, "delete")) found nothing to delete (deleted before, or never there: check the keys)"
        }
        if summary.reconciledBatches > 0 {
            line += "; \(counted(summary.reconciledBatches, "batch")) in doubt settled, \(counted(summary.reconciledApplied, "edit")) found applied"
        }
        if summary.outages > 0 {
            line +=
                "; waited \(BatchApplier.spoken(summary.outageTime)) for the service (out of reach \(summary.outages == 1 ? "once" : "\(summary.outages) times"))"
        }
        return line
    }
}
