/// An ``EditReader`` over records already in memory (tests, small inputs).
package struct ArrayEditReader: EditReader {
    private var records: [Result<InputEdit, InputProblem>]
    private var index = 0

    package init(_ records: [Result<InputEdit, InputProblem>]) {
        self.records = records
    }

    package mutating func next() -> Result<InputEdit, InputProblem>? {
        guard index < records.count else { return nil }
        defer { index += 1 }
        return records[index]
    }
}
