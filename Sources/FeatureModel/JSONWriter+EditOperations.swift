extension JSONWriter {
    /// Writes the answer of a per-operation edit endpoint: `{"addResults":[…]}` (addFeatures),
    /// `{"updateResults":[…]}` (updateFeatures) or `{"deleteResults":[…]}` (deleteFeatures), with `editMoment`
    /// when given.
    /// - Parameters:
    ///   - key: `addResults`, `updateResults` or `deleteResults`.
    package mutating func write(operationResults results: [EditResult], key: String, editMoment: Int64? = nil) {
        raw("{")
        write(results: results, key: key)
        if let editMoment { raw(",\"editMoment\":\(editMoment)") }
        raw("}")
    }

    /// Writes a service-level applyEdits answer: one element per layer, each with its `id`.
    package mutating func write(serviceResults results: [ApplyEditsResult]) {
        raw("[")
        for (index, result) in results.enumerated() {
            if index > 0 { raw(",") }
            write(result)
        }
        raw("]")
    }
}
