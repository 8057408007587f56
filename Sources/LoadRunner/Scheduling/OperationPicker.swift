/// Picks the operation of each iteration of a weighted mix. Pure and seeded: iteration `k` runs the same operation
/// whichever VU (or generator) starts it, and over many iterations each operation's share approaches its weight.
package struct OperationPicker: Sendable, Hashable {
    private let cumulative: [Int]
    private let seed: UInt64

    package init(weights: [Int], seed: UInt64) {
        var total = 0
        cumulative = weights.map { weight in
            total += max(weight, 0)
            return total
        }
        self.seed = seed
    }

    /// The index of the operation iteration `index` runs.
    package func pick(_ index: Int) -> Int {
        guard cumulative.count > 1, let total = cumulative.last, total > 0 else { return 0 }
        var random = SplitMixSeed.random(seed: seed, index: index)
        let draw = Int(random.next() % UInt64(total))
        var low = 0
        var high = cumulative.count - 1
        while low < high {
            let mid = (low + high) / 2
            if cumulative[mid] > draw { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
