/// Records read one at a time from an input, each an edit or the problem that kept it from being one; nil at the
/// end. Readers stream, so a source of any size plans in flat memory.
public protocol EditSource {
    /// The next record, or nil when the input is exhausted.
    /// - Throws: When the input as a whole cannot be read any further (an I/O error, a file that is not the format
    ///   it claims); a bad record is returned as a problem instead, and reading goes on.
    mutating func next() throws -> Result<InputEdit, InputProblem>?
}

/// An ``EditSource`` over records already in memory (tests, small inputs).
public struct ArrayEditSource: EditSource {
    private var records: [Result<InputEdit, InputProblem>]
    private var index = 0

    public init(_ records: [Result<InputEdit, InputProblem>]) {
        self.records = records
    }

    public mutating func next() throws -> Result<InputEdit, InputProblem>? {
        guard index < records.count else { return nil }
        defer { index += 1 }
        return records[index]
    }
}
