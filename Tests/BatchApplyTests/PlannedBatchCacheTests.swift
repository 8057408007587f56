@testable import BatchApply
import Testing

@Suite struct PlannedBatchCacheTests {
    static func edit(_ index: Int, payload: String = "{}") -> PlannedEdit {
        PlannedEdit(
            position: InputPosition(index: index, line: index + 1), kind: .add, layer: 0, globalId: "{\(index)}", objectId: nil, payload: payload,
            source: "record \(index)")
    }

    @Test("a batch whose rows were all inserted now is given once, in plan order, without its input text")
    func keepsFreshBatches() {
        let cache = PlannedBatchCache()
        // Batch 0 spans two pages.
        cache.keep([(Self.edit(0), 0, true), (Self.edit(1), 0, true)])
        cache.keep([(Self.edit(2), 0, true), (Self.edit(3), 1, true)])
        let first = cache.take(0)
        #expect(first?.map(\.position.index) == [0, 1, 2])
        #expect(first?.allSatisfy { $0.source.isEmpty && $0.position.line == nil } == true)
        #expect(first?.map(\.globalId) == ["{0}", "{1}", "{2}"])
        #expect(cache.take(0) == nil, "given once")
        #expect(cache.take(1)?.count == 1)
        #expect(cache.take(7) == nil, "never kept")
    }

    @Test("a batch with a row planned before (it may carry an outcome) is read from the journal")
    func refusesReplannedBatches() {
        let cache = PlannedBatchCache()
        cache.keep([(Self.edit(0), 0, true), (Self.edit(1), 0, false), (Self.edit(2), 0, true), (Self.edit(3), 1, true)])
        #expect(cache.take(0) == nil)
        #expect(cache.take(1)?.count == 1)
    }

    @Test("memory stays bounded: a batch that does not fit is read from the journal, and taking one makes room")
    func boundedByCapacity() {
        let payload = String(repeating: "x", count: 872)  // 1,000 bytes with the per-edit allowance
        let cache = PlannedBatchCache(capacity: 3_000)
        cache.keep([(Self.edit(0, payload: payload), 0, true), (Self.edit(1, payload: payload), 0, true)])
        cache.keep([(Self.edit(2, payload: payload), 1, true), (Self.edit(3, payload: payload), 1, true)])
        #expect(cache.take(1) == nil, "the second batch did not fit")
        #expect(cache.take(0)?.count == 2)
        cache.keep([(Self.edit(4, payload: payload), 2, true), (Self.edit(5, payload: payload), 2, true)])
        #expect(cache.take(2)?.count == 2, "room again once the first was taken")
    }

    @Test("after the plan's rows change, nothing kept is given")
    func forgetsAll() {
        let cache = PlannedBatchCache()
        cache.keep([(Self.edit(0), 0, true), (Self.edit(1), 1, true)])
        cache.forgetAll()
        #expect(cache.take(0) == nil && cache.take(1) == nil)
    }
}
