public import FeatureModel

/// One local edit that a ``ServiceFeatureTable`` holds until it is applied.
public struct PendingEdit: Sendable, Hashable {
    /// What the edit does.
    public enum Kind: String, Sendable, Hashable {
        case add, update, delete
    }

    /// What the edit does.
    public var kind: Kind
    /// The layer or table the edit goes to: the table's own id, or the relationship table of a many-to-many link.
    public var tableId: Int
    /// The feature as it will be sent (for deletes: the feature whose key is sent).
    public var feature: Feature
    /// Why the last attempt to apply the edit failed; nil until one failed.
    public var lastError: EditError?

    /// A pending edit.
    package init(kind: Kind, tableId: Int, feature: Feature, lastError: EditError? = nil) {
        self.kind = kind
        self.tableId = tableId
        self.feature = feature
        self.lastError = lastError
    }
}

/// The pending edits of one table, in the order they were first made, merged as the ArcGIS Maps SDKs merge them.
/// Pure value; the table actor owns one.
///
/// | pending | then | result |
/// |---|---|---|
/// | nothing | add | add |
/// | add | update | add (of the updated feature) |
/// | add | delete | nothing (never sent) |
/// | nothing or update | update | update |
/// | nothing or update | delete | delete |
struct PendingEditList: Sendable, Hashable {
    private(set) var keys: [String] = []
    private(set) var edits: [String: PendingEdit] = [:]
    /// Attachments to add with the next service-level applyEdits, in the order they were made.
    var attachments: [PendingAttachment] = []

    /// Whether nothing is pending: no edit and no attachment.
    var isEmpty: Bool { keys.isEmpty && attachments.isEmpty }

    /// The edits in order, with their keys.
    var entries: [(key: String, edit: PendingEdit)] { keys.map { ($0, edits[$0]!) } }

    /// The pending edit of `key`.
    subscript(key: String) -> PendingEdit? { edits[key] }

    /// Records a new feature.
    mutating func add(_ feature: Feature, key: String, tableId: Int) {
        set(PendingEdit(kind: .add, tableId: tableId, feature: feature), key: key)
    }

    /// Records a changed feature: an add stays an add of the new values.
    mutating func update(_ feature: Feature, key: String, tableId: Int) {
        let kind: PendingEdit.Kind = edits[key]?.kind == .add ? .add : .update
        set(PendingEdit(kind: kind, tableId: tableId, feature: feature), key: key)
    }

    /// Records a deletion: a pending add simply disappears, with the attachments pending for it.
    mutating func delete(_ feature: Feature, key: String, tableId: Int) {
        attachments.removeAll { $0.parentKey == key }
        if edits[key]?.kind == .add {
            remove(key)
        } else {
            set(PendingEdit(kind: .delete, tableId: tableId, feature: feature), key: key)
        }
    }

    /// Forgets the edit of `key`.
    mutating func remove(_ key: String) {
        guard edits.removeValue(forKey: key) != nil else { return }
        keys.removeAll { $0 == key }
    }

    /// Forgets the edit of `key` if it is still exactly `edit` (it was applied and not changed meanwhile).
    mutating func settle(_ key: String, applied edit: PendingEdit) {
        guard let current = edits[key], current.kind == edit.kind, current.feature == edit.feature else { return }
        remove(key)
    }

    /// Keeps the edit of `key` pending with the error of a failed attempt, if it was not changed meanwhile.
    mutating func fail(_ key: String, edit: PendingEdit, error: EditError) {
        guard var current = edits[key], current.kind == edit.kind, current.feature == edit.feature else { return }
        current.lastError = error
        edits[key] = current
    }

    private mutating func set(_ edit: PendingEdit, key: String) {
        if edits[key] == nil { keys.append(key) }
        edits[key] = edit
    }
}
