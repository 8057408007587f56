package import FeatureServiceClient

/// How an edit names its feature: by GlobalID or by object ID, in a layer. Edits naming the same feature keep the
/// input's order (``ApplyPlanner``, ``BatchApplier``).
struct FeatureKey: Hashable {
    var layer: Int
    var globalId: String?
    var objectId: Int64?

    /// The key of `edit`'s feature; nil when it names none.
    init?(_ edit: PlannedEdit) {
        guard edit.globalId != nil || edit.objectId != nil else { return nil }
        layer = edit.layer
        globalId = edit.globalId
        objectId = edit.globalId == nil ? edit.objectId : nil
    }
}

/// An edit as the plan writes it, before anything is sent.
package struct PlannedEdit: Sendable, Hashable {
    package var position: InputPosition
    package var kind: InputEdit.Kind
    /// The layer it goes to.
    package var layer: Int
    /// The add's client-assigned GlobalID; for updates and deletes keyed by GlobalID, the key.
    package var globalId: String?
    /// For updates and deletes keyed by objectId, the key.
    package var objectId: Int64?
    /// The Esri JSON feature to send (adds and updates); empty for deletes.
    package var payload: String
    /// The record as it stood in the input.
    package var source: String
    /// For an add that goes with others in one atomic request (a parent with its related records and files): the
    /// input position of the group's parent.
    package var group: Int?

    package init(
        position: InputPosition, kind: InputEdit.Kind, layer: Int, globalId: String?, objectId: Int64?, payload: String, source: String,
        group: Int? = nil
    ) {
        self.group = group
        self.position = position
        self.kind = kind
        self.layer = layer
        self.globalId = globalId
        self.objectId = objectId
        self.payload = payload
        self.source = source
    }

    /// Whether the edit is identified by GlobalID on the wire (`useGlobalIds=true`): every add, and updates and
    /// deletes that carry no objectId.
    var usesGlobalIds: Bool { kind == .add || objectId == nil }
}

/// A file to attach to a planned add, in the add's atomic request.
package struct PlannedAttachment: Sendable, Hashable {
    /// The input position of the add it is attached to.
    package var position: Int
    package var add: AttachmentAdd

    package init(position: Int, add: AttachmentAdd) {
        self.position = position
        self.add = add
    }
}
