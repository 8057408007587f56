import Synchronization

/// The edits of plain batches planned by this process, kept in memory (up to `capacity` bytes of edit text) so that
/// sending them does not read them back from the journal they were just written to.
///
/// Only a batch all of whose rows this process inserted is kept: a row that was there already (a plan made again over
/// an interrupted one) may carry an outcome, so such a batch, and any batch that did not fit, is read from the journal
/// as before. Edits are kept as the journal gives them for sending: pending, without their input text, line or table.
final class PlannedBatchCache: Sendable {
    private struct State {
        var batches: [Int: (edits: [JournalEdit], bytes: Int)] = [:]
        /// Batches with an edit not kept.
        var incomplete: Set<Int> = []
        var bytes = 0
    }

    private let state = Mutex(State())
    /// The most edit text kept, in bytes.
    let capacity: Int

    init(capacity: Int = 32 << 20) {
        self.capacity = capacity
    }

    /// Keeps the edits of plain batches (those with a batch) among `edits`, in plan order; `inserted` tells of each
    /// whether its row was inserted just now.
    func keep(_ edits: [(edit: PlannedEdit, batch: Int?)], inserted: [Bool]) {
        precondition(inserted.count == edits.count, "one inserted flag per edit")
        // Through a buffer pointer: reading an element out of the array copied it whole (every string retained).
        edits.withUnsafeBufferPointer { edits in
            state.withLock { state in
                // A run of edits of one batch at a time (a page holds its batches' edits one after another), each run
                // added to its batch's entry at once rather than through the dictionary edit by edit.
                var start = 0
                while start < edits.count {
                    var end = start + 1
                    while end < edits.count && edits[end].batch == edits[start].batch { end += 1 }
                    if let batch = edits[start].batch { Self.keep(edits, start..<end, of: batch, inserted: inserted, capacity: capacity, in: &state) }
                    start = end
                }
            }
        }
    }

    /// Keeps `edits[run]`, all of batch `batch`, unless the batch is incomplete or becomes so.
    private static func keep(
        _ edits: UnsafeBufferPointer<(edit: PlannedEdit, batch: Int?)>, _ run: Range<Int>, of batch: Int, inserted: [Bool], capacity: Int,
        in state: inout State
    ) {
        guard !state.incomplete.contains(batch) else { return }
        var entry = state.batches.removeValue(forKey: batch) ?? ([], 0)
        for index in run {
            let size = edits[index].edit.payload.utf8.count + 128
            guard inserted[index], state.bytes + size <= capacity else {
                state.incomplete.insert(batch)
                state.bytes -= entry.bytes
                return
            }
            entry.edits.append(JournalEdit(planned: forSending(edits[index].edit), batch: batch, status: .pending))
            entry.bytes += size
            state.bytes += size
        }
        state.batches[batch] = entry
    }

    /// `edit` as it is kept: without its input text, line or table (passed borrowed, so only what is kept is copied).
    static func forSending(_ edit: PlannedEdit) -> PlannedEdit {
        PlannedEdit(
            position: InputPosition(index: edit.position.index), kind: edit.kind, layer: edit.layer, globalId: edit.globalId, objectId: edit.objectId,
            payload: edit.payload, source: "", group: edit.group)
    }

    /// The edits of batch `id`, in plan order, as the journal gives them for sending (pending), if every one of them is
    /// kept; the batch is no longer kept either way.
    func take(_ id: Int) -> [JournalEdit]? {
        state.withLock { state in
            if state.incomplete.remove(id) != nil { return nil }
            guard let entry = state.batches.removeValue(forKey: id) else { return nil }
            state.bytes -= entry.bytes
            return entry.edits
        }
    }

    /// Forgets every batch kept (the plan's rows changed): they are read from the journal.
    func forgetAll() {
        state.withLock { state in
            state.incomplete.formUnion(state.batches.keys)
            state.batches.removeAll()
            state.bytes = 0
        }
    }
}
