/// The feature-service operations a scenario can run. Each kind's settings type owns its keys, their reading, its
/// plan check and its schema; this file registers them, and the compiler refuses a kind left out of a switch.
///
/// Adding a kind: write its ``OperationKindSettings`` type (and the iteration it runs) in a file of its own, add a
/// case here and in ``OperationSettings`` with an arm in each of their switches, then regenerate the schema with
/// `swift run featureload schema > Scenarios/schema/scenario.schema.json`.
package enum OperationKind: String, Sendable, Hashable, CaseIterable {
    /// `applyEdits` with `adds`, `updates` and `deletes` per request.
    case applyEdits
    /// The single-purpose endpoints, `batchSize` features per request.
    case addFeatures, updateFeatures, deleteFeatures
    /// `query`: a where clause (with `{objectId}` drawn from the layer), counts, ids, an envelope, paging.
    case query
    /// `queryRelatedRecords` for `batchSize` existing features through `relationship`.
    case queryRelatedRecords
    /// `addAttachment` of a generated file to an existing feature (through `uploads` above `uploadThreshold`).
    case addAttachment
    /// `queryAttachments` for `batchSize` existing features, optionally downloading each attachment.
    case queryAttachments
    /// `relate`, `unrelate` or `move` (`action`) an existing feature through `relationship`, validated first.
    case relate
    /// A new parent with `children` related records and `attachments` files in one service-level applyEdits.
    case deepInsert

    /// The type that owns the kind's settings.
    var settingsType: any OperationKindSettings.Type {
        switch self {
        case .applyEdits: return ApplyEditsSettings.self
        case .addFeatures: return AddFeaturesSettings.self
        case .updateFeatures: return UpdateFeaturesSettings.self
        case .deleteFeatures: return DeleteFeaturesSettings.self
        case .query: return QuerySettings.self
        case .queryRelatedRecords: return QueryRelatedRecordsSettings.self
        case .addAttachment: return AddAttachmentSettings.self
        case .queryAttachments: return QueryAttachmentsSettings.self
        case .relate: return RelateSettings.self
        case .deepInsert: return DeepInsertSettings.self
        }
    }
}

/// One operation's settings: a case per kind, each carrying the settings only that kind takes.
package enum OperationSettings: Sendable, Hashable {
    // One case per ``OperationKind``, named as it is.
    case applyEdits(ApplyEditsSettings)
    case addFeatures(AddFeaturesSettings)
    case updateFeatures(UpdateFeaturesSettings)
    case deleteFeatures(DeleteFeaturesSettings)
    case query(QuerySettings)
    case queryRelatedRecords(QueryRelatedRecordsSettings)
    case addAttachment(AddAttachmentSettings)
    case queryAttachments(QueryAttachmentsSettings)
    case relate(RelateSettings)
    case deepInsert(DeepInsertSettings)

    /// The settings, seen through what every kind provides.
    var owner: any OperationKindSettings {
        switch self {
        case .applyEdits(let settings): return settings
        case .addFeatures(let settings): return settings
        case .updateFeatures(let settings): return settings
        case .deleteFeatures(let settings): return settings
        case .query(let settings): return settings
        case .queryRelatedRecords(let settings): return settings
        case .addAttachment(let settings): return settings
        case .queryAttachments(let settings): return settings
        case .relate(let settings): return settings
        case .deepInsert(let settings): return settings
        }
    }

    /// The kind of operation.
    package var kind: OperationKind { type(of: owner).kind }
}
