import FeatureModel

extension FeatureService {
    /// A table over layer or table `id`, with no pending edits; its metadata is read (or taken from the cache).
    ///
    /// Each call makes a new ``ServiceFeatureTable`` with its own pending edits: keep the one you edit.
    /// - Parameter id: The layer or table id.
    /// - Throws: ``FeatureServiceError`` when the metadata cannot be read (an ArcGIS 404 error for an unknown id);
    ///   `CancellationError`.
    public func table(id: Int) async throws -> ServiceFeatureTable {
        let info = try await layerInfo(id: id)
        return ServiceFeatureTable(service: self, info: info, client: layer(id: id))
    }

    /// Applies the pending edits of `tables` in **one** service-level applyEdits (`POST …/FeatureServer/applyEdits`),
    /// with `useGlobalIds=true`: all or nothing when `rollbackOnFailure` is true (the default).
    ///
    /// This is the deep insert and change set of OData mapped onto a feature service: a new parent and children that
    /// reference the parent's client-assigned GlobalID are written in one transaction, or not at all. Layer entries
    /// go in the order of `tables` (a table's many-to-many links after it), each with its adds, updates and deletes.
    /// Deletes are sent by GlobalID when the feature has one, otherwise by object ID.
    ///
    /// Applied edits leave their table's pending edits. When the service rolls the call back, or no answer comes,
    /// every edit stays pending with the error (status ``EditOutcome/Status/failed``, or
    /// ``EditOutcome/Status/outcomeUnknown`` when the request may have been applied); the call is not retried.
    /// - Parameters:
    ///   - tables: The tables whose pending edits to send (tables of this service).
    ///   - rollbackOnFailure: All or nothing. Default true.
    /// The tables' pending attachments go in the same call; their results are reported by
    /// ``applyEditsAndAttachments(tables:rollbackOnFailure:)``, which this method calls.
    /// - Returns: One result per edit, table by table in pending order.
    /// - Throws: ``FeatureServiceError`` when one of the tables is already applying (nothing is sent then);
    ///   `CancellationError` — the edits then stay pending, and may have been applied.
    public func applyEdits(tables: [ServiceFeatureTable], rollbackOnFailure: Bool = true) async throws -> [FeatureEditResult] {
        try await applyEditsAndAttachments(tables: tables, rollbackOnFailure: rollbackOnFailure).features
    }
}

/// The `edits` of a service-level applyEdits planned from pending edits, and the map back from results to edits.
struct ServiceEditPlan: Sendable {
    struct Layer: Sendable {
        var tableId: Int
        var adds: [PendingEditSnapshot] = []
        var updates: [PendingEditSnapshot] = []
        var deletes: [PendingEditSnapshot] = []
        /// Pending attachments to add, in the entry's `attachments` member.
        var attachmentAdds: [PreparedAttachment] = []
    }

    /// One entry per table id, in the order of first appearance.
    var layers: [Layer] = []

    /// Groups `entries` by table id.
    init(_ entries: [PendingEditSnapshot]) {
        for entry in entries {
            let position =
                layers.firstIndex { $0.tableId == entry.edit.tableId }
                ?? {
                    layers.append(Layer(tableId: entry.edit.tableId))
                    return layers.count - 1
                }()
            switch entry.edit.kind {
            case .add: layers[position].adds.append(entry)
            case .update: layers[position].updates.append(entry)
            case .delete: layers[position].deletes.append(entry)
            }
        }
    }

    /// `[{"id":0,"adds":[…],"updates":[…],"deletes":[…]}, …]`; deletes as GlobalIDs, or object IDs when a feature has
    /// no GlobalID.
    var editsJSON: String {
        var text = "["
        for (index, layer) in layers.enumerated() {
            if index > 0 { text += "," }
            text += "{\"id\":\(layer.tableId)"
            if !layer.adds.isEmpty { text += ",\"adds\":" + JSONWriter.string(features: layer.adds.map(\.edit.feature)) }
            if !layer.updates.isEmpty { text += ",\"updates\":" + JSONWriter.string(features: layer.updates.map(\.edit.feature)) }
            if !layer.deletes.isEmpty {
                var writer = JSONWriter(capacity: 64)
                writer.write(JSONValue.array(layer.deletes.map(Self.deleteKey)))
                text += ",\"deletes\":" + writer.string
            }
            if let attachments = Self.attachmentsJSON(layer) { text += ",\"attachments\":" + attachments }
            text += "}"
        }
        return text + "]"
    }

    /// The delete key of a pending edit, from the key it is pending under (`<table>/<GlobalID>` or
    /// `<table>/oid:<n>`).
    static func deleteKey(_ entry: PendingEditSnapshot) -> JSONValue {
        let local = entry.key.split(separator: "/", maxSplits: 1).last.map(String.init) ?? ""
        if local.hasPrefix("oid:"), let objectId = Int64(local.dropFirst(4)) { return .int(objectId) }
        return GlobalID.normalized(local).map(JSONValue.string) ?? .null
    }

    /// The results of a successful answer, matched to the edits by layer id and position.
    func results(of answer: [ApplyEditsResult]) -> [PendingEditSnapshot: FeatureEditResult] {
        var results: [PendingEditSnapshot: FeatureEditResult] = [:]
        for layer in layers {
            let result = answer.first { $0.id == layer.tableId }
            func map(_ entries: [PendingEditSnapshot], _ wire: [EditResult]?) {
                for (index, entry) in entries.enumerated() {
                    let item = wire.flatMap { index < $0.count ? $0[index] : nil }
                    let status: EditOutcome.Status = item == nil ? .outcomeUnknown : item!.success ? .applied : .failed
                    var error = item?.error
                    if item == nil { error = EditError(code: 0, description: "the service sent no result for this edit") }
                    if status == .failed && error == nil {
                        error = EditError(code: 0, description: "the service reported a failure without an error")
                    }
                    results[entry] = FeatureEditResult(
                        tableId: layer.tableId, kind: entry.edit.kind, objectId: item?.objectId,
                        globalId: item?.globalId.flatMap(GlobalID.normalized), status: status, error: status == .applied ? nil : error)
                }
            }
            map(layer.adds, result?.addResults)
            map(layer.updates, result?.updateResults)
            map(layer.deletes, result?.deleteResults)
        }
        return results
    }

    /// Every edit failed (or, when the request may have been applied, of unknown outcome) with `error`.
    func results(of error: FeatureServiceError) -> [PendingEditSnapshot: FeatureEditResult] {
        let status: EditOutcome.Status = error.mayHaveBeenApplied ? .outcomeUnknown : .failed
        let editError = EditError(batchFailure: error)
        var results: [PendingEditSnapshot: FeatureEditResult] = [:]
        for layer in layers {
            for entry in layer.adds + layer.updates + layer.deletes {
                results[entry] = FeatureEditResult(
                    tableId: layer.tableId, kind: entry.edit.kind, objectId: nil, globalId: nil, status: status, error: editError)
            }
        }
        return results
    }
}
