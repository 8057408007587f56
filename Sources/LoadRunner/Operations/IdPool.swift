import FeatureModel
import Synchronization

/// Object IDs of features that exist, shared by a scenario's operations: updates and related queries sample it,
/// deletes take from it (never below the reserve kept for the others), adds put their new features in.
///
/// It holds at most ``capacity`` IDs, so a long run of adds keeps its memory flat: once full, each new ID replaces a
/// random one, so the pool leans toward recently added features.
package final class IdPool: Sendable {
    private struct State {
        var ids: [Int64]
        var random: SplitMix64
    }

    private let state: Mutex<State>
    /// Deletes leave at least this many IDs for the operations that only sample.
    package let reserve: Int
    /// The most IDs kept.
    package let capacity: Int

    package init(ids: [Int64], seed: UInt64, reserve: Int = 0, capacity: Int = 100_000) {
        state = Mutex(State(ids: Array(ids.prefix(max(capacity, 1))), random: SplitMix64(seed: seed)))
        self.reserve = reserve
        self.capacity = max(capacity, 1)
    }

    package var count: Int { state.withLock { $0.ids.count } }

    /// Up to `count` IDs drawn at random (with replacement when the pool is small).
    package func sample(_ count: Int) -> [Int64] {
        guard count > 0 else { return [] }
        return state.withLock { state in
            guard !state.ids.isEmpty else { return [] }
            return (0..<count).map { _ in state.ids[Int(state.random.next() % UInt64(state.ids.count))] }
        }
    }

    /// Up to `count` distinct IDs removed from the pool, or fewer when only the reserve would be left.
    package func take(_ count: Int) -> [Int64] {
        guard count > 0 else { return [] }
        return state.withLock { state in
            var taken: [Int64] = []
            while taken.count < count && state.ids.count > reserve {
                let index = Int(state.random.next() % UInt64(state.ids.count))
                state.ids.swapAt(index, state.ids.count - 1)
                taken.append(state.ids.removeLast())
            }
            return taken
        }
    }

    /// One ID removed from the pool for exclusive use, the reserve notwithstanding (the caller gives it back with
    /// ``add(_:)``); nil when the pool is empty. Deletes keep the reserve for operations that only sample; an
    /// operation that borrows a feature and returns it takes nothing away from them for long.
    package func borrow() -> Int64? {
        state.withLock { state in
            guard !state.ids.isEmpty else { return nil }
            let index = Int(state.random.next() % UInt64(state.ids.count))
            state.ids.swapAt(index, state.ids.count - 1)
            return state.ids.removeLast()
        }
    }

    /// Adds IDs of new features; past ``capacity`` each replaces a random one.
    package func add(_ ids: some Collection<Int64>) {
        guard !ids.isEmpty else { return }
        let capacity = capacity
        state.withLock { state in
            let room = max(0, capacity - state.ids.count)
            state.ids.append(contentsOf: ids.prefix(room))
            for id in ids.dropFirst(room) {
                state.ids[Int(state.random.next() % UInt64(state.ids.count))] = id
            }
        }
    }
}
