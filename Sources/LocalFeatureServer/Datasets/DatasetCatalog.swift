import FeatureModel
import Foundation

/// Finds the service definition a `--dataset` argument names.
///
/// Resolution of a reference `R`:
/// 1. `R` contains `/` or ends in `.json`: the file at that path (relative to the working directory).
/// 2. Otherwise `R` is a name: `Scenarios/datasets/R.json` under the working directory, if that file exists;
/// 3. else the built-in dataset `R` (``ServiceDefinition/builtIn``), so the binary works from any directory.
///
/// A malformed file is reported with every problem, each with its JSON path and a fix.
package enum DatasetCatalog {
    /// The directory, relative to the working directory, searched for dataset names.
    package static let directory = "Scenarios/datasets"

    /// The definition `reference` names, with generated rows added (see ``RowGenerator``).
    /// - Parameters:
    ///   - reference: A dataset name or a path to a dataset file.
    ///   - workingDirectory: Where relative paths and `Scenarios/datasets/` are looked up.
    ///   - generatedRows: Overrides the row count of every layer that has a `generator`.
    /// - Throws: ``LocalFeatureServerError`` for an unknown name, an unreadable file or a malformed one.
    package static func resolve(_ reference: String, workingDirectory: String, generatedRows: Int? = nil) throws -> ServiceDefinition {
        let definition: ServiceDefinition
        if let path = file(for: reference, workingDirectory: workingDirectory) {
            definition = try load(path: path, shownAs: isPath(reference) ? reference : "\(directory)/\(reference).json")
        } else if let builtIn = ServiceDefinition.builtIn(named: reference) {
            definition = builtIn
        } else {
            throw LocalFeatureServerError.unknownDataset(reference, known: knownNames(workingDirectory: workingDirectory))
        }
        return RowGenerator.addingGeneratedRows(to: definition, rowsOverride: generatedRows)
    }

    /// The file `reference` names (rules 1 and 2 above): its path, or nil for a built-in dataset. A command that
    /// writes files checks that none is this one.
    package static func file(for reference: String, workingDirectory: String) -> String? {
        if isPath(reference) { return reference.hasPrefix("/") ? reference : "\(workingDirectory)/\(reference)" }
        let path = "\(workingDirectory)/\(directory)/\(reference).json"
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// Whether `reference` is a path (rule 1) rather than a name.
    private static func isPath(_ reference: String) -> Bool { reference.contains("/") || reference.hasSuffix(".json") }

    /// The definition in the dataset file at `path`.
    /// - Parameters:
    ///   - shownAs: How the file is named in errors (default: `path`).
    /// - Throws: ``LocalFeatureServerError`` when the file cannot be read or is malformed.
    package static func load(path: String, shownAs: String? = nil) throws -> ServiceDefinition {
        let name = shownAs ?? path
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw LocalFeatureServerError.invalidDataset(
                file: name,
                issues: [DatasetIssue(path: "$", problem: "cannot read the file", fix: "check the path (relative to the working directory)")]
            )
        }
        switch DatasetFile.read(text) {
        case .success(let definition): return definition
        case .failure(let error): throw LocalFeatureServerError.invalidDataset(file: name, issues: error.issues)
        }
    }

    /// Names usable as a reference: the files in `Scenarios/datasets/` and the built-ins, sorted, without duplicates.
    static func knownNames(workingDirectory: String) -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: "\(workingDirectory)/\(directory)")) ?? []
        let names = files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) } + ServiceDefinition.builtIn.map(\.name)
        return Array(Set(names)).sorted()
    }
}
