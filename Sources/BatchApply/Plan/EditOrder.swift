/// Keeps several edits of one feature in the input's order: the features the input names by a key, with the last edit
/// naming each, and what that means for the next edit of the same feature.
///
/// Keys are the GlobalIDs the input gave its adds (a repeated one would be reported applied without being added;
/// derived GlobalIDs differ by position, so an add with one is named by no other edit) and the GlobalIDs and object
/// IDs of updates and deletes. Held in memory: one entry per such feature. Pure.
struct EditOrder {
    /// The last edit of the input that named a feature: its position, its batch (nil while in a group) and its kind;
    /// and the position of the add that gave the feature its GlobalID, if the input has one.
    struct KeyUse: Equatable {
        var position: Int
        var batch: Int?
        var kind: InputEdit.Kind
        var addedAt: Int?
    }

    /// Why an edit cannot go, given the earlier edits of its feature.
    enum Conflict: Equatable {
        /// An add whose GlobalID an earlier add (at `firstAdd`) gave its feature.
        case globalIdReused(String, firstAdd: Int)
        /// An update or delete of a feature that the add at `groupedAdd` adds in a group (sent after every other
        /// batch).
        case editsGroupedAdd(groupedAdd: Int)

        /// The problem, as reported with the record.
        var reason: String {
            switch self {
            case .globalIdReused(let globalId, let added):
                "its GlobalID \(globalId) is that of record \(added + 1) too; each add needs its own"
            case .editsGroupedAdd(let position):
                "it edits the feature that record \(position + 1) adds with its related records or files, which go in a request of their own after the other edits. Fix: apply this edit in a second run"
            }
        }
    }

    /// An edit with its feature's key (nil when no other edit can name it) and the last earlier edit of that feature.
    struct Lookup {
        var edit: PlannedEdit
        var key: FeatureKey?
        var earlier: KeyUse?

        /// Why the edit cannot go, if it cannot.
        var conflict: Conflict? {
            if edit.kind == .add, let added = earlier?.addedAt, let globalId = edit.globalId { return .globalIdReused(globalId, firstAdd: added) }
            if edit.kind != .add, let earlier, earlier.batch == nil { return .editsGroupedAdd(groupedAdd: earlier.position) }
            return nil
        }

        /// Whether the edit starts a batch of its own rather than joining `openBatch`: within one batch the service
        /// applies adds, then updates, then deletes, so an edit that must come after an edit of the same feature that
        /// the batch would apply later (a delete, then an update or an add again) cannot share it.
        func needsFreshBatch(openBatch: Int?) -> Bool {
            earlier.map { $0.kind.order > edit.kind.order && $0.batch == openBatch } ?? false
        }

        /// Whether batch `batch`, once it holds the edit, waits until no batch before it is in flight: an earlier
        /// batch edits the same feature.
        func makesBarrier(of batch: Int) -> Bool {
            if let before = earlier?.batch, before != batch { return true }
            return false
        }
    }

    private var keyed: [FeatureKey: KeyUse] = [:]

    /// `edit` with what the earlier edits of its feature say about it; `givenGlobalId` tells whether an add's GlobalID
    /// came with the input (rather than being derived).
    func lookUp(_ edit: PlannedEdit, givenGlobalId: Bool) -> Lookup {
        let key = edit.kind == .add && !givenGlobalId ? nil : FeatureKey(edit)
        return Lookup(edit: edit, key: key, earlier: key.flatMap { keyed[$0] })
    }

    /// Records that the looked-up edit goes in `batch` (nil: in a group, batched once the input is read).
    mutating func record(_ lookup: Lookup, batch: Int?) {
        guard let key = lookup.key else { return }
        let edit = lookup.edit
        keyed[key] = KeyUse(
            position: edit.position.index, batch: batch, kind: edit.kind, addedAt: edit.kind == .add ? edit.position.index : lookup.earlier?.addedAt)
    }
}
