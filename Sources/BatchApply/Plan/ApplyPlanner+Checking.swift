package import FeatureModel
import Foundation

extension ApplyPlanner {
    /// A record read and checked, ready to plan. The cases of the general path are boxed, so that a chunk of the
    /// commonest case, ``point(_:)``, moves a ``PlannedEdit`` a record, not the largest case.
    package enum Checked: Sendable {
        /// The record could not be read or decoded.
        case unreadable(InputProblem)
        /// The record does not fit its layer (`edit` as checked: without an attachment key the layer lacks).
        indirect case refused(InputProblem, InputEdit)
        /// The record made into a planned edit; `edit` is the record without its feature (planning needs its
        /// position, text, kind and layer), `feature` its converted feature, `attachmentKey` the value that names its
        /// files.
        indirect case ready(edit: InputEdit, planned: PlannedEdit, givenGlobalId: Bool, feature: Feature, attachmentKey: JSONValue?)
        /// An add the fast path (``PointAdds``) planned: it derived its GlobalID, and there is nothing more to it (no
        /// related records or files). A case of its own so that the commonest record moves through the chunk and the
        /// planner as one ``PlannedEdit``, not with an empty record and feature beside it.
        case point(PlannedEdit)
    }

    /// `records` decoded and checked, in their order, the work shared out over `threads` threads (the calling one
    /// among them) in contiguous runs.
    package func checkAll(_ records: [ReadRecord], threads: Int) -> [Checked] {
        checkAll(records, threads: threads, lastFirst: false)
    }

    /// ``checkAll(_:threads:)``, the results last first when `lastFirst` (so that they can be taken in input order
    /// with `popLast()`, which moves each out, without reversing the array: a move of every result).
    func checkAll(_ records: [ReadRecord], threads: Int, lastFirst: Bool) -> [Checked] {
        let threads = max(1, min(threads, records.count))
        let count = records.count
        return records.withUnsafeBufferPointer { records in
            // Records are read in place (taken out of the array, each was copied), and each thread initializes only
            // its own run of the buffer; both outlive the threads.
            nonisolated(unsafe) let records = records
            return [Checked](unsafeUninitializedCapacity: count) { buffer, initialized in
                nonisolated(unsafe) let start = buffer.baseAddress!
                let checkRun = { @Sendable (part: Int) in
                    for index in (count * part / threads)..<(count * (part + 1) / threads) {
                        (start + (lastFirst ? count - 1 - index : index)).initialize(to: check(records[index]))
                    }
                }
                if threads > 1 { DispatchQueue.concurrentPerform(iterations: threads, execute: checkRun) } else { checkRun(0) }
                initialized = count
            }
        }
    }

    /// One record decoded and checked.
    package func check(_ record: ReadRecord) -> Checked {
        // An add with nothing more to it than its feature (no related records or files to find) may take the fast path.
        // `pointAdds?.plan`, not `let pointAdds`: binding it copied the fast path out of the planner for every record,
        // retaining and releasing its rules, which every checking thread shares.
        if fastPath, related == false, attachments == nil, case .deferred(_, let text?, _) = record,
            let planned = pointAdds?.plan(text, scheme: globalIdScheme)
        {
            return .point(planned)
        }
        switch record.decode() {
        case .failure(let problem):
            return .unreadable(problem)
        case .success(var edit):
            let layerId = edit.layer ?? defaultLayer
            // The attachment key is an input attribute; unless the layer has such a field it is not sent.
            var attachmentKey: JSONValue?
            if let (_, keyField) = attachments {
                if edit.kind == .add, layers[layerId]?.hasAttachments == true { attachmentKey = edit.feature[attribute: keyField] }
                if layers[layerId]?.field(named: keyField) == nil {
                    edit.feature.attributes = edit.feature.attributes.filter { !$0.key.caseInsensitiveEquals(keyField) }
                }
            }
            switch prepare(edit) {
            case .failure(let problem): return .refused(problem, edit)
            case .success(let (planned, givenGlobalId, feature)):
                // The record's own feature is not needed any more: the chunk holds less.
                edit.feature = Feature(attributes: [:])
                return .ready(edit: edit, planned: planned, givenGlobalId: givenGlobalId, feature: feature, attachmentKey: attachmentKey)
            }
        }
    }
}

/// Records read from an input in chunks and checked together on several threads, handed out one at a time in input
/// order. A chunk holds up to ``ApplyPlanner/checkingChunk`` records and ``ApplyPlanner/checkingChunkBytes`` of their
/// text.
///
/// With more than one checking thread the chunks go through a pipeline: while a chunk is checked on the checking
/// threads, the calling thread reads the next one and plans the one before it, so no core waits on the serial parts
/// (reading lines and planning in order were a third of a dry run's time, with the other core idle). At most two
/// chunks are held: the one being handed out and the one being checked.
struct CheckedRecords {
    let planner: ApplyPlanner
    /// Threads that check a chunk (with one, the calling thread checks each chunk itself).
    let threads: Int
    private var exhausted = false
    /// The chunk's records checked, last first: taken with `popLast()`, which moves them out instead of copying.
    private var checked: [ApplyPlanner.Checked] = []
    /// The next chunk, being checked on other threads.
    private var pending: CheckingJob?

    init(planner: ApplyPlanner) {
        self.planner = planner
        threads = max(1, min(planner.checkingThreads, 16))
    }

    /// The next record of `source`, checked; nil once the input has ended.
    mutating func next(from source: inout some EditReader) -> ApplyPlanner.Checked? {
        if checked.isEmpty {
            if threads == 1 {
                let chunk = read(from: &source)
                if chunk.isEmpty { return nil }
                checked = planner.checkAll(chunk, threads: 1, lastFirst: true)
            } else {
                if pending == nil { pending = start(read(from: &source)) }
                guard let job = pending else { return nil }
                // The chunk after this one is read, and starts its check, before this one is handed out.
                pending = start(read(from: &source))
                checked = job.wait()
                if checked.isEmpty { return nil }
            }
        }
        return checked.popLast()
    }

    /// The next chunk of records; empty once the input has ended.
    private mutating func read(from source: inout some EditReader) -> [ReadRecord] {
        guard !exhausted else { return [] }
        var chunk: [ReadRecord] = []
        chunk.reserveCapacity(ApplyPlanner.checkingChunk)
        var bytes = 0
        while chunk.count < ApplyPlanner.checkingChunk && bytes < ApplyPlanner.checkingChunkBytes {
            guard let read = source.nextRead() else {
                exhausted = true
                break
            }
            bytes += read.byteCount
            chunk.append(read)
        }
        return chunk
    }

    /// `chunk` being checked on ``threads`` other threads; nil for an empty chunk.
    private func start(_ chunk: [ReadRecord]) -> CheckingJob? {
        chunk.isEmpty ? nil : CheckingJob(planner: planner, chunk: chunk, threads: threads)
    }
}

/// One chunk checked on a thread of Dispatch's pool (spread over `threads` threads), its results taken once by
/// ``wait()``. A job nobody waits for (planning stopped) finishes and is dropped.
private final class CheckingJob: @unchecked Sendable {
    // `results` is written once, by the job, before `done` is signalled, and read only after waiting for it.
    private var results: [ApplyPlanner.Checked] = []
    private let done = DispatchSemaphore(value: 0)

    init(planner: ApplyPlanner, chunk: [ReadRecord], threads: Int) {
        DispatchQueue.global().async { [self] in
            results = planner.checkAll(chunk, threads: threads, lastFirst: true)
            done.signal()
        }
    }

    /// The chunk's records checked, last first.
    func wait() -> [ApplyPlanner.Checked] {
        done.wait()
        defer { results = [] }
        return results
    }
}
