public import FeatureModel
import FeatureServiceClient
import Foundation

/// Turns input records into the journal's plan: each edit checked against its layer (field types, domains, required
/// fields, keys), given its client GlobalID, and assigned to a batch; problems collected with their positions.
///
/// Batches hold up to `batchSize` edits of one layer, in input order, and never mix edits identified by GlobalID
/// (adds, and updates and deletes that carry only a GlobalID: sent with `useGlobalIds=true`) with edits identified
/// by objectId (sent without it, since ArcGIS then finds updates by GlobalID only).
///
/// A value owned by one task; it streams: at most one page of edits is held before it is written.
public struct ApplyPlanner {
    /// The layers edits may go to, by id.
    public let layers: [Int: LayerInfo]
    /// The layer of records that name none.
    public let defaultLayer: Int
    public let batchSize: Int
    /// Checks and converts a feature's attributes for its layer (types, domains, required fields): the converted
    /// feature and every problem found.
    public typealias Coercion = @Sendable (Feature, LayerInfo, InputEdit.Kind) -> (Feature, [String])
    let coerce: Coercion

    /// Edits written to the journal per transaction.
    static let pageSize = 2_000
    /// Problems kept to report; beyond this they are counted (and, with a journal, recorded).
    static let problemsKept = 1_000

    /// What planning found.
    public struct Summary: Sendable, Hashable {
        /// Records read (edits and problems).
        public var records = 0
        /// Edits planned, by kind.
        public var edits: [InputEdit.Kind: Int] = [:]
        public var batches = 0
        /// The first ``ApplyPlanner/problemsKept`` problems.
        public var problems: [InputProblem] = []
        public var problemCount = 0

        public var editCount: Int { edits.values.reduce(0, +) }
    }

    /// A planner for edits to `layers` (records that name no layer go to `defaultLayer`).
    public init(layers: [Int: LayerInfo], defaultLayer: Int, batchSize: Int, coerce: @escaping Coercion = { feature, layer, kind in FieldCoercion.coerce(feature, kind: kind, layer: layer) }) {
        self.layers = layers
        self.defaultLayer = defaultLayer
        self.batchSize = max(1, batchSize)
        self.coerce = coerce
    }

    /// Reads every record of `source`, checks it and, when `journal` is given, writes the plan (and, when
    /// `recordProblems`, the problems) to it. Nothing is sent.
    /// - Throws: ``ApplyError/journal(_:)`` and GRDB's errors when the journal cannot be written.
    public func plan(_ source: inout some EditReader, into journal: ApplyJournal?, recordProblems: Bool = false) throws -> Summary {
        var summary = Summary()
        var nextBatch = 0
        // The open batch of each (layer, identified by GlobalID) group, and how full it is.
        var open: [BatchKey: (id: Int, count: Int)] = [:]
        var page: [(edit: PlannedEdit, batch: Int)] = []
        var newBatches: [(id: Int, layer: Int, useGlobalIds: Bool)] = []
        var problems: [InputProblem] = []
        // GlobalIDs the input gave its adds, per layer: a repeat would be reported applied without being added.
        // (Derived GlobalIDs differ by position.) Held in memory: one entry per add that carries a GlobalID.
        var givenGlobalIds: [Int: [String: Int]] = [:]

        func flush() throws {
            if let journal, !page.isEmpty || !newBatches.isEmpty { try journal.append(page, batches: newBatches) }
            if let journal, recordProblems { try journal.append(problems: problems) }
            page.removeAll(keepingCapacity: true)
            newBatches.removeAll(keepingCapacity: true)
            problems.removeAll(keepingCapacity: true)
        }
        func problem(_ problem: InputProblem) {
            summary.problemCount += 1
            if summary.problems.count < Self.problemsKept { summary.problems.append(problem) }
            problems.append(problem)
        }

        while let record = source.next() {
            summary.records += 1
            switch record {
            case .failure(let failure):
                problem(failure)
            case .success(let edit):
                switch prepare(edit) {
                case .failure(let failure):
                    problem(failure)
                case .success(let (planned, givenGlobalId)):
                    if planned.kind == .add, givenGlobalId, let globalId = planned.globalId {
                        if let first = givenGlobalIds[planned.layer]?[globalId] {
                            problem(
                                InputProblem(
                                    position: edit.position, reason: "its GlobalID \(globalId) is that of record \(first + 1) too; each add needs its own",
                                    source: edit.source))
                            continue
                        }
                        givenGlobalIds[planned.layer, default: [:]][globalId] = edit.position.index
                    }
                    let key = BatchKey(layer: planned.layer, useGlobalIds: planned.usesGlobalIds)
                    var slot = open[key] ?? (id: -1, count: batchSize)
                    if slot.count >= batchSize {
                        slot = (id: nextBatch, count: 0)
                        nextBatch += 1
                        newBatches.append((slot.id, key.layer, key.useGlobalIds))
                    }
                    slot.count += 1
                    open[key] = slot
                    page.append((planned, slot.id))
                    summary.edits[planned.kind, default: 0] += 1
                }
            }
            if page.count >= Self.pageSize || problems.count >= Self.pageSize { try flush() }
        }
        try flush()
        summary.batches = nextBatch
        return summary
    }

    struct BatchKey: Hashable {
        var layer: Int
        var useGlobalIds: Bool
    }

    /// One record checked against its layer and made into a planned edit; `givenGlobalId` tells whether the record
    /// carried its GlobalID (rather than getting a derived one).
    func prepare(_ edit: InputEdit) -> Result<(edit: PlannedEdit, givenGlobalId: Bool), InputProblem> {
        let layerId = edit.layer ?? defaultLayer
        func fail(_ reason: String) -> Result<(edit: PlannedEdit, givenGlobalId: Bool), InputProblem> {
            .failure(InputProblem(position: edit.position, reason: reason, source: edit.source))
        }
        guard let layer = layers[layerId] else {
            return fail("layer \(layerId) is not in the service; layers are \(layers.keys.sorted().map(String.init).joined(separator: ", "))")
        }
        let objectIdField = layer.objectIdField
        let globalIdField = layer.globalIdField
        var feature = edit.feature
        // Keys may be spelled as the reader wrote them (OBJECTID, GlobalID) or as the layer does.
        let objectIdValue = feature[attribute: objectIdField] ?? feature[attribute: "OBJECTID"]
        let globalIdValue = globalIdField.flatMap { feature[attribute: $0] } ?? feature[attribute: "GlobalID"]
        let keyNames = Set([objectIdField, "OBJECTID", globalIdField ?? "GlobalID", "GlobalID"].map { $0.lowercased() })
        feature.attributes = feature.attributes.filter { !keyNames.contains($0.key.lowercased()) }
        var objectId: Int64?
        if let objectIdValue, !objectIdValue.isNull {
            guard let value = objectIdValue.intValue ?? objectIdValue.stringValue.flatMap({ Int64($0) }), value > 0 else {
                return fail("\(objectIdField) must be a positive whole number, got \(objectIdValue)")
            }
            objectId = value
        }
        var globalId: String?
        let givenGlobalId = globalIdValue.map { !$0.isNull } ?? false
        if let globalIdValue, givenGlobalId {
            guard let text = globalIdValue.stringValue, let normalized = GlobalID.normalized(text) else {
                return fail("\(globalIdField ?? "GlobalID") must be a GUID like {8-4-4-4-12 hex digits}, got \(globalIdValue)")
            }
            globalId = normalized
        }

        switch edit.kind {
        case .add:
            guard let globalIdField else {
                return fail(
                    "layer \(layerId) (\(layer.name)) has no GlobalID field, so an add cannot be applied exactly once: a retried request could add it twice. Fix: add a GlobalID field to the layer")
            }
            objectId = nil
            let id = globalId ?? DerivedGlobalID.make(layer: layerId, position: edit.position.index, source: edit.source)
            globalId = id
            let (converted, problems) = coerce(feature, layer, .add)
            feature = converted
            if let reason = Self.reason(problems) { return fail(reason) }
            feature.attributes[globalIdField] = .string(id)
        case .update:
            guard objectId != nil || (globalId != nil && globalIdField != nil) else {
                return fail("an update needs the feature's \(objectIdField)\(globalIdField.map { " or \($0)" } ?? "") to find it by")
            }
            let (converted, problems) = coerce(feature, layer, .update)
            feature = converted
            if let reason = Self.reason(problems) { return fail(reason) }
            if let objectId {
                feature.attributes[objectIdField] = .int(objectId)
                globalId = nil
            } else if let globalId, let globalIdField {
                feature.attributes[globalIdField] = .string(globalId)
            }
        case .delete:
            guard objectId != nil || (globalId != nil && globalIdField != nil) else {
                return fail("a delete needs the feature's \(objectIdField)\(globalIdField.map { " or \($0)" } ?? "") to find it by")
            }
            if objectId != nil { globalId = nil }
        }
        if edit.kind != .delete, layer.geometryType == nil { feature.geometry = nil }
        let payload = edit.kind == .delete ? "" : JSONWriter.string(features: [feature]).dropFirst().dropLast()
        let planned = PlannedEdit(
            position: edit.position, kind: edit.kind, layer: layerId, globalId: globalId, objectId: objectId, payload: String(payload),
            source: edit.source)
        return .success((planned, givenGlobalId))
    }

    static func reason(_ problems: [String]) -> String? {
        problems.isEmpty ? nil : problems.joined(separator: "; ")
    }
}
