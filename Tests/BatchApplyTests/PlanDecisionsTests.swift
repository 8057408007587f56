import Testing

@testable import BatchApply

/// The planner's pure decisions, one at a time: which batch a plain edit joins, what the earlier edits of a feature
/// say about the next one, and how groups fill atomic batches.
@Suite struct PlanDecisionsTests {
    static let globalId = "{00000000-0000-4000-8000-000000000001}"

    static func edit(_ position: Int, _ kind: InputEdit.Kind, layer: Int = 0, globalId: String? = nil, objectId: Int64? = nil) -> PlannedEdit {
        PlannedEdit(
            position: InputPosition(index: position), kind: kind, layer: layer, globalId: globalId, objectId: objectId, payload: "", source: "")
    }

    @Test("plain edits fill batches of batchSize per layer and key kind, completing each once full or at the end of the input")
    func batchesPerStream() {
        var batches = BatchAssigner(batchSize: 2)
        let ids = [
            batches.assign(Self.edit(0, .add)),  // layer 0, by GlobalID
            batches.assign(Self.edit(1, .update, objectId: 5)),  // layer 0, by objectId: a batch of its own
            batches.assign(Self.edit(2, .add)),  // fills batch 0
            batches.assign(Self.edit(3, .add, layer: 1)),
            batches.assign(Self.edit(4, .add)),  // batch 0 is full: a new one
        ]
        #expect(ids == [0, 1, 0, 2, 3])
        let made = batches.takeMade()
        #expect(made.map(\.id) == [0, 1, 2, 3])
        #expect(made.map(\.layer) == [0, 0, 1, 0])
        #expect(made.map(\.useGlobalIds) == [true, false, true, true])
        let madeAgain = batches.takeMade()
        #expect(madeAgain.isEmpty)
        let full = batches.takeCompleted()
        #expect(full == ApplyPlanner.ReadyBatches(ids: [0], edits: 2))
        batches.completeAll()
        let atEnd = batches.takeCompleted()
        #expect(atEnd == ApplyPlanner.ReadyBatches(ids: [1, 2, 3], edits: 3))
        let reserved = batches.reserve()
        #expect(reserved == 4)
        #expect(batches.nextBatch == 5)
    }

    @Test("a fresh batch completes the open one as it is")
    func freshBatch() {
        var batches = BatchAssigner(batchSize: 10)
        let first = batches.assign(Self.edit(0, .delete, objectId: 1))
        #expect(first == 0)
        #expect(batches.openBatch(for: Self.edit(1, .update, objectId: 1)) == 0)
        let fresh = batches.assign(Self.edit(1, .update, objectId: 1), fresh: true)
        #expect(fresh == 1)
        let completed = batches.takeCompleted()
        #expect(completed == ApplyPlanner.ReadyBatches(ids: [0], edits: 1))
    }

    @Test("an add whose GlobalID an earlier add of the input gave is refused; a derived one is never looked up")
    func reusedGlobalId() {
        var order = EditOrder()
        let first = order.lookUp(Self.edit(0, .add, globalId: Self.globalId), givenGlobalId: true)
        #expect(first.conflict == nil)
        order.record(first, batch: 0)
        let again = order.lookUp(Self.edit(3, .add, globalId: Self.globalId), givenGlobalId: true)
        #expect(again.conflict == .globalIdReused(Self.globalId, firstAdd: 0))
        #expect(again.conflict?.reason == "its GlobalID \(Self.globalId) is that of record 1 too; each add needs its own")
        let derived = order.lookUp(Self.edit(4, .add, globalId: Self.globalId), givenGlobalId: false)
        #expect(derived.key == nil && derived.conflict == nil)
    }

    @Test("an update of a feature added in a group is refused: groups go after every other batch")
    func editOfGroupedAdd() {
        var order = EditOrder()
        let add = order.lookUp(Self.edit(2, .add, globalId: Self.globalId), givenGlobalId: true)
        order.record(add, batch: nil)
        let update = order.lookUp(Self.edit(5, .update, globalId: Self.globalId), givenGlobalId: true)
        #expect(update.conflict == .editsGroupedAdd(groupedAdd: 2))
    }

    @Test("an edit that must follow a later-applied kind in its open batch starts a new batch; one of another batch waits for it")
    func freshBatchAndBarrier() {
        var order = EditOrder()
        let delete = order.lookUp(Self.edit(0, .delete, objectId: 7), givenGlobalId: false)
        #expect(!delete.needsFreshBatch(openBatch: nil))
        order.record(delete, batch: 3)
        let update = order.lookUp(Self.edit(1, .update, objectId: 7), givenGlobalId: false)
        #expect(update.earlier == EditOrder.KeyUse(position: 0, batch: 3, kind: .delete, addedAt: nil))
        #expect(update.needsFreshBatch(openBatch: 3))
        #expect(!update.needsFreshBatch(openBatch: 4))
        #expect(update.makesBarrier(of: 4))
        #expect(!update.makesBarrier(of: 3))
        let first = order.lookUp(Self.edit(2, .update, objectId: 8), givenGlobalId: false)
        #expect(first.earlier == nil && !first.makesBarrier(of: 4))
    }

    @Test("a later edit of an added feature remembers where the add was")
    func addedAtCarriesOver() {
        var order = EditOrder()
        let add = order.lookUp(Self.edit(0, .add, globalId: Self.globalId), givenGlobalId: true)
        order.record(add, batch: 0)
        let update = order.lookUp(Self.edit(1, .update, globalId: Self.globalId), givenGlobalId: true)
        order.record(update, batch: 0)
        let next = order.lookUp(Self.edit(2, .update, globalId: Self.globalId), givenGlobalId: true)
        #expect(next.earlier == EditOrder.KeyUse(position: 1, batch: 0, kind: .update, addedAt: 0))
    }

    @Test("groups fill atomic batches in order up to batchSize edits and the inline byte limit; a larger group goes alone")
    func atomicBatches() {
        var atomic = AtomicBatcher(batchSize: 4, inlineBytesPerBatch: 100)
        var next = 10
        /// The batch the group goes in, "new" when it starts one.
        func place(_ weights: [Int], bytes: Int64 = 0) -> String {
            let group = weights.enumerated().map { Groups.Member(position: $0.offset, layer: 0, weight: $0.element, bytes: bytes) }
            let placed = atomic.place(group) {
                defer { next += 1 }
                return next
            }
            return "\(placed.batch)" + (placed.isNew ? " new" : "")
        }
        var placed: [String] = []
        placed.append(place([1, 1]))
        placed.append(place([2]))
        placed.append(place([1]))  // 4 + 1 > 4
        placed.append(place([3, 3]))  // larger than a batch: alone
        placed.append(place([1]))
        placed.append(place([1], bytes: 60))
        placed.append(place([1], bytes: 60))  // 60 + 60 bytes > 100
        #expect(placed == ["10 new", "10", "11 new", "12 new", "13 new", "13", "14 new"])
    }
}
