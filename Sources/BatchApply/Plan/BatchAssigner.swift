/// Puts plain edits into batches as the input is read: up to `batchSize` edits of one layer, in input order, edits
/// identified by GlobalID (sent with `useGlobalIds=true`) never with edits identified by objectId.
///
/// Each stream of batches (``BatchKey``) has one open batch; a batch is complete once full, when a new one is asked
/// for (`fresh`), or when the input ends. Pure: the planner writes the batches it makes and hands over those it
/// completes.
struct BatchAssigner {
    /// The stream of batches an edit goes in: its layer, and whether it is named by GlobalID.
    struct BatchKey: Hashable {
        var layer: Int
        var useGlobalIds: Bool

        init(_ edit: PlannedEdit) {
            layer = edit.layer
            useGlobalIds = edit.usesGlobalIds
        }
    }

    let batchSize: Int
    /// The id the next batch gets (ids count up from 0 in the order batches are made).
    private(set) var nextBatch = 0
    /// The open batch of each stream, and how full it is; the stream of the last edit is in `last` instead.
    private var open: [BatchKey: (id: Int, count: Int)] = [:]
    /// The stream the last edit went in, with its open batch: most inputs are one stream, whose edits then need no
    /// hashing of their key.
    private var last: (key: BatchKey, slot: (id: Int, count: Int))?
    /// Batches made since ``takeMade()``: id, layer, and whether they are sent with `useGlobalIds=true`.
    private(set) var made: [(id: Int, layer: Int, useGlobalIds: Bool)] = []
    /// Batches completed since ``takeCompleted()``, and the edits in them.
    private(set) var completed = ApplyPlanner.ReadyBatches(ids: [], edits: 0)

    init(batchSize: Int) {
        self.batchSize = max(1, batchSize)
    }

    /// The batch still taking edits of `edit`'s stream, if any.
    func openBatch(for edit: PlannedEdit) -> Int? {
        slot(of: BatchKey(edit))?.id
    }

    /// The open batch of stream `key`, and how full it is.
    private func slot(of key: BatchKey) -> (id: Int, count: Int)? {
        if let last, last.key == key { return last.slot }
        return open[key]
    }

    /// Sets the open batch of stream `key`, which becomes the last one.
    private mutating func set(_ slot: (id: Int, count: Int), of key: BatchKey) {
        if let last, last.key != key {
            open[last.key] = last.slot
            open[key] = nil
        }
        last = (key, slot)
    }

    /// The batch `edit` goes in; with `fresh`, a new one (the open batch is complete as it is).
    mutating func assign(_ edit: PlannedEdit, fresh: Bool = false) -> Int {
        let key = BatchKey(edit)
        var slot = self.slot(of: key) ?? (id: -1, count: batchSize)
        if fresh && slot.id >= 0 && slot.count < batchSize {
            complete(slot)
            slot.count = batchSize
        }
        if slot.count >= batchSize {
            slot = (id: nextBatch, count: 0)
            nextBatch += 1
            made.append((slot.id, key.layer, key.useGlobalIds))
        }
        slot.count += 1
        set(slot, of: key)
        if slot.count == batchSize { complete(slot) }
        return slot.id
    }

    /// The input has ended: every batch still taking edits is complete as it is.
    mutating func completeAll() {
        var slots = Array(open.values)
        if let slot = last?.slot { slots.append(slot) }
        for slot in slots.sorted(by: { $0.id < $1.id }) where slot.count < batchSize { complete(slot) }
    }

    /// A batch id for a batch made elsewhere (the atomic batches of groups), after every plain batch.
    mutating func reserve() -> Int {
        defer { nextBatch += 1 }
        return nextBatch
    }

    /// The batches made since the last call.
    mutating func takeMade() -> [(id: Int, layer: Int, useGlobalIds: Bool)] {
        defer { made.removeAll(keepingCapacity: true) }
        return made
    }

    /// The batches completed since the last call.
    mutating func takeCompleted() -> ApplyPlanner.ReadyBatches {
        defer { completed = ApplyPlanner.ReadyBatches(ids: [], edits: 0) }
        return completed
    }

    private mutating func complete(_ slot: (id: Int, count: Int)) {
        completed.ids.append(slot.id)
        completed.edits += slot.count
    }
}
