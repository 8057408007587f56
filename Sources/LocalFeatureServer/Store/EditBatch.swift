import FeatureModel

/// One add or update as the client sent it: attributes by field name and an optional geometry, still as JSON.
///
/// Values stay as parsed ``JSONValue``s; the store checks and converts each one once, while writing.
struct FeatureEdit: Sendable, Hashable {
    var attributes: [String: JSONValue]
    var geometry: JSONValue?
}

/// Which row a delete addresses.
enum DeleteKey: Sendable, Hashable {
    case objectId(Int64)
    case globalId(String)
}

/// The edits of one layer-level applyEdits request and its options.
struct EditBatch: Sendable, Hashable {
    var adds: [FeatureEdit] = []
    var updates: [FeatureEdit] = []
    var deletes: [DeleteKey] = []
    /// Also delete every row matching this compiled `where` clause (deleteFeatures by `where`).
    var deleteWhere: SQLFragment? = nil
    /// All or nothing (default true).
    var rollbackOnFailure = true
    /// Keep submitted GlobalIDs on adds; address updates and deletes by GlobalID.
    var useGlobalIds = false
    /// Report `editMoment` in the answer.
    var returnEditMoment = false
    /// Attachment edits (`attachments`, with `useGlobalIds` only), applied after the adds and updates.
    var attachments: AttachmentEdits? = nil
    /// Injected per-edit failures (fault injection): picked up from the request's task when the batch is made.
    var injectedFailures: EditFaultInjection? = EditFaultInjection.current

    /// Number of edits in the batch (rows matched by ``deleteWhere`` not included).
    var count: Int { adds.count + updates.count + deletes.count }
}

/// The edits of a service-level applyEdits: one ``EditBatch`` per layer, in request order, applied in one
/// transaction.
///
/// The service-level options (`rollbackOnFailure`, `useGlobalIds`, `returnEditMoment`) are those of every layer
/// batch; with `useGlobalIds` a child added after its parent can carry the parent's client-chosen GlobalID.
struct ServiceEditBatch: Sendable, Hashable {
    /// The edits of one layer.
    struct LayerBatch: Sendable, Hashable {
        var layerId: Int
        var batch: EditBatch
    }

    var layers: [LayerBatch] = []
    var rollbackOnFailure = true
    var useGlobalIds = false
    var returnEditMoment = false
}

/// The ArcGIS edit error codes the store reports (see arcgis-rest.md §2).
enum EditErrorCode {
    static let nonSpecific = 1000
    static let notNullable = 1001
    static let objectMissing = 1011
    static let geometryNotSet = 1015
    static let settingValueFailed = 1016
    static let insertFailed = 1017
    static let deleteFailed = 1018
    static let constraintViolated = 1019
    static let globalIdMissing = 1020
    static let globalIdInvalid = 1021
    static let uniqueConstraint = 1022
    static let fieldNotEditable = 1023
}

/// A failed check of one edit, carrying the ArcGIS edit error it is reported with.
struct EditFailure: Error, Sendable, Hashable {
    var error: EditError

    init(code: Int, description: String) {
        error = EditError(code: code, description: description)
    }
}
