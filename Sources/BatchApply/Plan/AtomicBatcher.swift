/// Puts the groups of a plan (a parent with its related records and files) into atomic batches once the whole input
/// is read: each group whole in one batch, groups in input order, up to `batchSize` edits and files and
/// `inlineBytesPerBatch` bytes of inline files a batch; a bigger group goes alone. Pure.
struct AtomicBatcher {
    let batchSize: Int
    let inlineBytesPerBatch: Int64
    /// The batch being filled, nil before the first group.
    private(set) var current: Int?
    private var weight = 0
    private var bytes: Int64 = 0

    init(batchSize: Int, inlineBytesPerBatch: Int64) {
        self.batchSize = batchSize
        self.inlineBytesPerBatch = inlineBytesPerBatch
    }

    /// Whether `group` starts a new batch rather than joining the current one.
    func needsNewBatch(for group: [Groups.Member]) -> Bool {
        guard current != nil else { return true }
        return weight + group.reduce(0) { $0 + $1.weight } > batchSize || bytes + group.reduce(Int64(0)) { $0 + $1.bytes } > inlineBytesPerBatch
    }

    /// Puts `group` in the current batch, or in `newBatch` (which the caller reserved) when it does not fit.
    /// - Returns: the batch it went in, and whether that is `newBatch`.
    mutating func place(_ group: [Groups.Member], newBatch: () -> Int) -> (batch: Int, isNew: Bool) {
        let isNew = needsNewBatch(for: group)
        if isNew {
            current = newBatch()
            weight = 0
            bytes = 0
        }
        weight += group.reduce(0) { $0 + $1.weight }
        bytes += group.reduce(Int64(0)) { $0 + $1.bytes }
        return (current!, isNew)
    }
}
