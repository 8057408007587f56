package import FeatureModel
import Foundation

extension ApplyPlanner {
    /// A record read and checked, ready to plan.
    package enum Checked: Sendable {
        /// The record could not be read or decoded.
        case unreadable(InputProblem)
        /// The record does not fit its layer (`edit` as checked: without an attachment key the layer lacks).
        case refused(InputProblem, InputEdit)
        /// The record made into a planned edit; `edit` is the record without its feature (planning needs its
        /// position, text, kind and layer), `feature` its converted feature, `attachmentKey` the value that names its
        /// files.
        case ready(edit: InputEdit, planned: PlannedEdit, givenGlobalId: Bool, feature: Feature, attachmentKey: JSONValue?)
    }

    /// `records` decoded and checked, in their order, the work shared out over `threads` threads (the calling one
    /// among them) in contiguous runs.
    package func checkAll(_ records: [ReadRecord], threads: Int) -> [Checked] {
        let threads = min(threads, records.count)
        guard threads > 1 else { return records.map(check) }
        return [Checked](unsafeUninitializedCapacity: records.count) { buffer, initialized in
            // Each thread initializes only its own run of the buffer, which outlives them all.
            nonisolated(unsafe) let start = buffer.baseAddress!
            DispatchQueue.concurrentPerform(iterations: threads) { @Sendable part in
                for index in (records.count * part / threads)..<(records.count * (part + 1) / threads) {
                    (start + index).initialize(to: check(records[index]))
                }
            }
            initialized = records.count
        }
    }

    /// One record decoded and checked.
    package func check(_ record: ReadRecord) -> Checked {
        // An add with nothing more to it than its feature (no related records or files to find) may take the fast path.
        if fastPath, related == false, attachments == nil, let pointAdds, case .deferred(_, let text?, _) = record, let planned = pointAdds.plan(text, scheme: globalIdScheme) {
            let edit = InputEdit(kind: .add, feature: Feature(attributes: [:]), position: text.position, source: planned.source)
            return .ready(edit: edit, planned: planned, givenGlobalId: false, feature: Feature(attributes: [:]), attachmentKey: nil)
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
struct CheckedRecords {
    let planner: ApplyPlanner
    /// Threads that check a chunk (the calling one among them).
    let threads: Int
    private var chunk: [ReadRecord] = []
    private var exhausted = false
    /// The chunk's records checked, last first: taken with `popLast()`, which moves them out instead of copying.
    private var checked: [ApplyPlanner.Checked] = []

    init(planner: ApplyPlanner) {
        self.planner = planner
        threads = max(1, min(planner.checkingThreads, 16))
    }

    /// The next record of `source`, checked; nil once the input has ended.
    mutating func next(from source: inout some EditReader) -> ApplyPlanner.Checked? {
        if checked.isEmpty {
            guard !exhausted else { return nil }
            chunk.removeAll(keepingCapacity: true)
            var bytes = 0
            while chunk.count < ApplyPlanner.checkingChunk && bytes < ApplyPlanner.checkingChunkBytes {
                guard let read = source.nextRead() else {
                    exhausted = true
                    break
                }
                bytes += read.byteCount
                chunk.append(read)
            }
            if chunk.isEmpty { return nil }
            checked = planner.checkAll(chunk, threads: threads)
            checked.reverse()
        }
        return checked.popLast()
    }
}
