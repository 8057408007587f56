import FeatureModel

/// The dataset files built into the server, decoded once.
///
/// The texts live in `EmbeddedDatasets.swift`, an exact copy of `Scenarios/datasets/*.json` written by
/// `Scenarios/datasets/embed.sh`; a test fails when the two drift apart.
enum BuiltInDatasets {
    static let definitions: [ServiceDefinition] = EmbeddedDatasets.files.map { file in
        switch DatasetFile.read(file.text) {
        case .success(let definition): return definition
        case .failure(let error): preconditionFailure("built-in dataset \(file.name) is invalid:\n\(error)")
        }
    }
}
