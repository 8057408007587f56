import Synchronization

/// The edits of plain batches planned by this process, kept in memory (up to `capacity` bytes of edit text) so that
/// sending them does not read them back from the journal they were just written to.
///
/// Only a batch all of whose rows this process inserted is kept: a row that was there already (a plan made again over
/// an interrupted one) may carry an outcome, so such a batch, and any batch that did not fit, is read from the journal
/// as before. Edits are kept as the journal gives them for sending: without their input text, line or table.
final class PlannedBatchCache: Sendable {
    private struct State {
        var batches: [Int: (edits: [PlannedEdit], bytes: Int)] = [:]
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
                for index in edits.indices {
                    guard let batch = edits[index].batch, !state.incomplete.contains(batch) else { continue }
                    let size = edits[index].edit.payload.utf8.count + 128
                    guard inserted[index], state.bytes + size <= capacity else {
                        state.incomplete.insert(batch)
                        if let dropped = state.batches.removeValue(forKey: batch) { state.bytes -= dropped.bytes }
                        continue
                    }
                    state.batches[batch, default: ([], 0)].edits.append(Self.forSending(edits[index].edit))
                    state.batches[batch]?.bytes += size
                    state.bytes += size
                }
            }
        }
    }

    /// `edit` as it is kept: without its input text, line or table (passed borrowed, so only what is kept is copied).
    static func forSending(_ edit: PlannedEdit) -> PlannedEdit {
        PlannedEdit(
            position: InputPosition(index: edit.position.index), kind: edit.kind, layer: edit.layer, globalId: edit.globalId, objectId: edit.objectId,
            payload: edit.payload, source: "", group: edit.group)
    }

    /// The edits of batch `id`, in plan order, if every one of them is kept; the batch is no longer kept either way.
    func take(_ id: Int) -> [PlannedEdit]? {
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
