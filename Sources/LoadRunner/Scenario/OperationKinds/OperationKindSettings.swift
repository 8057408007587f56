import FeatureModel
import Foundation
import Yams

/// What each operation kind owns: its keys with their schema, how it reads them from a scenario file, what it
/// checks against the service, and what its iterations do. One type per kind, one file each; ``OperationKind``
/// registers them.
protocol OperationKindSettings: Sendable, Hashable {
    /// The kind these settings belong to.
    static var kind: OperationKind { get }
    /// What the kind does, in a few words (the schema's description of its rules).
    static var summary: String { get }
    /// The keys the kind takes beside `layer`, in the order the schema lists them.
    static var keys: [any ScenarioKeyDeclaration] { get }
    /// Schema rules beyond each key's own (`allOf` entries over the operation's keys), e.g. keys that exclude each other.
    static var schemaRules: [SchemaValue] { get }
    /// Keys the kind cannot do without.
    static var requiredKeys: [String] { get }

    /// The kind's defaults.
    init()

    /// Reads the kind's own keys; the parser has already refused the keys of other kinds.
    static func read(_ input: MappingInput, _ reader: inout NodeReader) -> Self

    /// These settings as the operation enum's case.
    var settings: OperationSettings { get }
    /// Edits one iteration sends when each succeeds (0 for reads).
    var editsPerIteration: Int { get }
    /// Adds one iteration sends.
    var addsPerIteration: Int { get }
    /// Whether an iteration does little but wait on its request (see ``OperationSpec/fitsDriverThread``).
    var fitsDriverThread: Bool { get }
    /// Why the operation needs features that already exist: the key to name and what it does to them (`update`,
    /// `delete`, `use`); nil when it needs none.
    var existingFeatures: (key: String, verb: String)? { get }
    /// Whether it samples existing features it leaves in place (the pool then keeps a reserve that deletes do not take).
    var samplesExistingFeatures: Bool { get }
    /// The share of adds broken on purpose when the kind's adds are shaped to the layer's rules; nil when it makes
    /// no adds that are shaped.
    var invalidAddsRate: Double? { get }
    /// The relationship the operation works through, if any.
    var relationship: Int? { get }
    /// The attachment files an iteration uploads (size and content type), if any.
    var attachmentFiles: AttachmentFiles? { get }

    /// These settings with `value` as the batch size a `sweep: { batchSize: […] }` varies (applyEdits' adds, the
    /// batch of the kinds that have one); unchanged for the others.
    func sweeping(batchSize value: Int) -> Self

    /// The problems of running the operation against `layer`, beside the ones every kind has (the layer exists, the
    /// features it needs are there).
    func problems(_ check: OperationCheck) -> [String]

    /// The iteration the operation runs.
    func operation(_ spec: OperationSpec, environment: OperationEnvironment) -> any LoadOperation
}

extension OperationKindSettings {
    static var schemaRules: [SchemaValue] { [] }
    static var requiredKeys: [String] { [] }
    var addsPerIteration: Int { 0 }
    var fitsDriverThread: Bool { false }
    var existingFeatures: (key: String, verb: String)? { nil }
    var samplesExistingFeatures: Bool { false }
    var invalidAddsRate: Double? { nil }
    var relationship: Int? { nil }
    var attachmentFiles: AttachmentFiles? { nil }
    func problems(_ check: OperationCheck) -> [String] { [] }
    func sweeping(batchSize value: Int) -> Self { self }

    /// The keys of the kind, `layer` first, as its messages list them.
    static var keyNames: [String] { ["layer"] + keys.map(\.name) }
}

/// The attachment files an operation uploads: their size (fixed or a range) and content type.
package struct AttachmentFiles: Sendable, Hashable {
    /// Each file's size: fixed, or spread over a range.
    package var size: OperationSpec.SizeRange
    /// The MIME type the files are sent as.
    package var contentType: String

    package init(size: OperationSpec.SizeRange = Self.defaultSize, contentType: String = Self.defaultContentType) {
        self.size = size
        self.contentType = contentType
    }

    /// Each file's size unless `size` says otherwise.
    static let defaultSize = OperationSpec.SizeRange(64 * 1024)
    /// The files' MIME type unless `contentType` says otherwise.
    static let defaultContentType = "image/jpeg"
    /// Files larger than this go through the service's `uploads` endpoint first, unless `uploadThreshold` says otherwise.
    static let defaultUploadThreshold: Int64 = 10 * 1024 * 1024
}

/// An operation's mapping in a scenario file, with typed reads that record an issue under the operation's path.
struct MappingInput {
    let map: Node.Mapping
    /// The node of the operation's mapping (a scenario, or a mix entry).
    let node: Node
    /// The field path of the mapping, e.g. `scenarios.smoke` or `scenarios.smoke.mix[1]`.
    let path: String

    /// Whether the file gives `key`.
    func has(_ key: String) -> Bool { map[key] != nil }

    /// The value of `key`: what the file gives, or the key's default when it is left out or refused (and reported).
    func read<Value>(_ key: ScenarioKey<Value>, _ reader: inout NodeReader) -> Value { key.read(map, path: path, &reader) }

    /// Records a problem with `key` (at its value when given, else at the operation).
    func issue(_ key: String, problem: String, fix: String, _ reader: inout NodeReader) {
        reader.issue(map[key] ?? node, field: "\(path).\(key)", problem: problem, fix: fix)
    }

    /// Reports a missing `key` that the kind cannot do without.
    func require(_ key: any ScenarioKeyDeclaration, _ problem: String, fix: String, _ reader: inout NodeReader) {
        guard !has(key.name) else { return }
        reader.issue(node, field: "\(path).\(key.name)", problem: problem, fix: fix)
    }

    /// The relationship id, if given, and a problem when `kind` cannot do without one.
    func relationship(required kind: OperationKind?, _ reader: inout NodeReader) -> Int? {
        if let kind {
            require(
                ScenarioKey.relationship, "\(kind.rawValue) needs the relationship to work through",
                fix: "add e.g. `relationship: 0` (the layer's relationships are listed at …/FeatureServer/<layer>)", &reader)
        }
        return read(.relationship, &reader)
    }

    /// `size`, `contentType` and `uploadThreshold` of generated attachment files.
    func attachmentFiles(_ reader: inout NodeReader) -> (files: AttachmentFiles, uploadThreshold: Int64) {
        (AttachmentFiles(size: read(.size, &reader), contentType: read(.contentType, &reader)), read(.uploadThreshold, &reader))
    }
}

/// What a kind's plan check sees: the operation, its layer and where to point in messages.
struct OperationCheck {
    let spec: OperationSpec
    let layer: LayerInfo
    /// The operation's field path in messages, e.g. `scenarios.smoke.mix[query]`.
    let field: String

    /// `layer 0 (Parks)`.
    var layerName: String { "layer \(spec.layer) (\(layer.name))" }
}
