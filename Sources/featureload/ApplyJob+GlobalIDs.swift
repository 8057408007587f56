import BatchApply
import FeatureModel
import FeatureServiceClient

extension ApplyJob {
    /// Records read to find out whether an earlier release applied the input.
    static let earlierReleaseSample = 200

    /// How a new run derives its adds' GlobalIDs: ordered (``DerivedGlobalID/Scheme/ordered``), unless an earlier
    /// release applied the same input to the same layer, which derived them hashed. The adds among the first
    /// ``earlierReleaseSample`` records are looked up by their hashed IDs (one query a layer); when any is there, this run
    /// derives them hashed too, so applying the file again still finds what landed instead of adding it twice.
    /// - Throws: the reader's errors, and the service's when the look-up fails after its retries.
    func globalIdScheme(
        _ header: JournalHeader, layers: [Int: LayerInfo], service: FeatureService, display: ProgressDisplay
    ) async throws -> DerivedGlobalID.Scheme {
        var reader = try InputFile.open(path: header.input, format: header.reading.format, options: header.reading.options)
        let sample = Self.planner(for: header, layers: layers).hashedGlobalIDs(ofFirst: Self.earlierReleaseSample, in: &reader)
        for (layer, ids) in sample.sorted(by: { $0.key < $1.key }) {
            guard let info = layers[layer], let globalIdField = info.globalIdField, !ids.isEmpty else { continue }
            let found = try await service.layer(id: layer).objectIds(
                forGlobalIds: ids, globalIdField: globalIdField, objectIdField: info.objectIdField, retry: BatchApplier.defaultRetry)
            guard !found.isEmpty else { continue }
            display.message(
                "\(found.count) of the first \(ids.count) adds of \(header.input) are in layer \(layer) already, under the GlobalIDs an earlier release derived: this run derives them the same way, so what landed then is found, not added twice"
            )
            return .hashed
        }
        return .ordered
    }
}
