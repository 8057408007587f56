package import FeatureModel

/// A file to attach, in the same service-level applyEdits, to a feature added there (or already in the service).
package struct AttachmentAdd: Sendable, Hashable {
    /// The layer of the feature it is attached to.
    package var layer: Int
    /// The attachment's own client GlobalID, so a replay is recognised.
    package var globalId: String
    /// The GlobalID of the feature it is attached to.
    package var parentGlobalId: String
    /// The file's path.
    package var file: String
    /// The name it goes by in the service.
    package var name: String
    package var contentType: String

    package init(layer: Int, globalId: String, parentGlobalId: String, file: String, name: String, contentType: String) {
        self.layer = layer
        self.globalId = globalId
        self.parentGlobalId = parentGlobalId
        self.file = file
        self.name = name
        self.contentType = contentType
    }
}

/// Adds to several layers and files attached to them, sent as one atomic service-level applyEdits: a deep insert.
package struct AtomicAdds: Sendable, Hashable {
    /// The adds of each layer, every one carrying its client GlobalID in its layer's GlobalID field.
    package var adds: [Int: [Feature]]
    /// Each layer's GlobalID field.
    package var globalIdFields: [Int: String]
    /// Each layer's object-ID field, to look adds up by GlobalID.
    package var objectIdFields: [Int: String]
    package var attachments: [AttachmentAdd]

    package init(adds: [Int: [Feature]], globalIdFields: [Int: String], objectIdFields: [Int: String], attachments: [AttachmentAdd] = []) {
        self.adds = adds
        self.globalIdFields = globalIdFields
        self.objectIdFields = objectIdFields
        self.attachments = attachments
    }

    /// The client GlobalID of `feature`, an add of `layer`.
    func globalId(of feature: Feature, layer: Int) -> String? {
        feature[attribute: globalIdField(layer)]?.stringValue.flatMap(GlobalID.normalized)
    }

    /// The GlobalID field of `layer`.
    func globalIdField(_ layer: Int) -> String { globalIdFields[layer] ?? "GlobalID" }

    /// The object-ID field of `layer`.
    func objectIdField(_ layer: Int) -> String { objectIdFields[layer] ?? "OBJECTID" }

    /// The layers with adds, in order.
    var addLayers: [Int] { adds.filter { !$0.value.isEmpty }.keys.sorted() }
}

/// The exactly-once rule of a service-level request: keyed like a layer's adds, each layer's in its own GlobalID
/// field. The request always rolls back, so after an ambiguous failure the adds are looked up before anything is
/// resent, and files only arrive with their adds: without adds nothing can be looked up.
extension AtomicAdds: ExactlyOnceEdits {
    /// One result per layer.
    package typealias Answer = [ApplyEditsResult]
    /// The request's options (``FeatureService/applyAtomically(_:retry:uploads:)`` sends `rollbackOnFailure=true`
    /// and `useGlobalIds=true`).
    package typealias Settings = ApplyEditsOptions

    package func addGlobalIds(_ options: ApplyEditsOptions) -> [String]? {
        guard options.useGlobalIds else { return adds.values.allSatisfy(\.isEmpty) && attachments.isEmpty ? [] : nil }
        var ids: [String] = []
        for layer in addLayers {
            for feature in adds[layer] ?? [] {
                guard let id = globalId(of: feature, layer: layer) else { return nil }
                ids.append(id)
            }
        }
        // Files alone cannot be looked up: only the adds they arrive with vouch for them.
        if ids.isEmpty && !attachments.isEmpty { return nil }
        return ids
    }

    package func actionAfterAmbiguousFailure(_ options: ApplyEditsOptions) -> ExactlyOnceRule.AmbiguityAction {
        guard let ids = addGlobalIds(options) else { return .abandonAdds(replayRest: !options.rollbackOnFailure) }
        guard options.rollbackOnFailure, !ids.isEmpty else { return .replay }
        return .verify(.addedGlobalIds(ids))
    }

    package static func rollsBack(_ options: ApplyEditsOptions) -> Bool { options.rollbackOnFailure }

    /// Always `nil`: the files go with the adds, and nothing else is sent.
    package var withoutAdds: AtomicAdds? { nil }

    package func uncheckedReason(after failure: String) -> String {
        adds.values.allSatisfy(\.isEmpty) ? "\(failure): attachments alone cannot be looked up" : ExactlyOnceRule.unkeyedAddsReason(after: failure)
    }
}

/// What became of an ``AtomicAdds``: all of it applied, or none of it.
package struct AtomicAddsOutcome: Sendable {
    package enum Status: Sendable, Hashable {
        /// This call applied every add and attachment.
        case applied
        /// Every add was already in the service: an earlier attempt (or run) applied them.
        case appliedEarlier
        /// The service refused the request and applied none of it: a per-edit failure rolled it back, or the request
        /// was invalid. Not worth sending again as it is.
        case rejected(ArcGISError)
        /// Retries gave up; nothing was applied (checked by GlobalID after any attempt that may have reached the service).
        case failed(String)
        /// Whether it was applied could not be told.
        case unknown(String)
    }

    package var status: Status
    /// The objectId of each add found or applied, by layer and canonical GlobalID.
    package var objectIds: [Int: [String: Int64]]
    /// For ``Status/rejected(_:)``: adds found already in the service (which a replay then refuses as duplicates).
    package var alreadyPresent: Int
    /// Every exchange made: the sends, and the look-ups by GlobalID (of purpose ``Attempt/Purpose/verification``).
    package var attempts: [Attempt]
    /// For ``Status/failed(_:)`` after retries gave up, and ``Status/unknown(_:)`` when the check whether an attempt
    /// was applied failed too: how the last attempt failed.
    package var lastFailure: AttemptFailure?

    package var isApplied: Bool { status == .applied || status == .appliedEarlier }
}
