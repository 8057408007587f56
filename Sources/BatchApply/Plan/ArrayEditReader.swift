/// An ``EditReader`` over records already in memory (tests, small inputs).
public struct ArrayEditReader: EditReader {
    private var records: [Result<InputEdit, InputProblem>]
    private var index = 0

    public init(_ records: [Result<InputEdit, InputProblem>]) {
        self.records = records
    }

    public mutating func next() -> Result<InputEdit, InputProblem>? {
        guard index < records.count else { return nil }
        defer { index += 1 }
        return records[index]
    }
}
