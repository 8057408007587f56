/// What a journal says the service holds, by layer, gathered from its edits in input order: the applied adds (each
/// expected there once), the adds that did not apply (expected absent) and the applied deletes (expected gone).
///
/// An applied edit that a later applied edit of the same feature superseded is not expected on its own: an add that a
/// later delete removed (by GlobalID or by the objectId the add got), and a delete by GlobalID whose GlobalID a later
/// add used again. Pure: ``JournalVerifier`` asks the service about what it lists.
struct ExpectedFeatures {
    /// An applied add: its GlobalID, the objectId the service gave it (if recorded) and its input position.
    struct Add: Hashable {
        var globalId: String
        var objectId: Int64?
        var position: Int
    }

    /// What to check, by layer, once every edit is noted.
    struct Expectation: Equatable {
        /// Applied adds, expected there once under their recorded objectId.
        var appliedAdds: [Int: [Add]] = [:]
        /// GlobalIDs of adds that did not apply (rejected, or failed after every retry), expected absent.
        var unappliedAdds: [Int: [String]] = [:]
        /// GlobalIDs of adds not settled yet (pending: not sent, or sent by an apply that stopped before the answer;
        /// unknown: an ambiguous failure): either may be in the service, and `apply --resume` settles both.
        var unsettledAdds: [Int: [String]] = [:]
        /// Applied deletes by objectId and by GlobalID, expected gone.
        var deletedObjectIds: [Int: [Int64]] = [:]
        var deletedGlobalIds: [Int: [String]] = [:]
        /// Applied edits left out because a later edit of the same feature superseded them.
        var superseded = 0
    }

    private var applied: [Int: [Add]] = [:]
    private var unapplied: [Int: [String]] = [:]
    private var unsettled: [Int: [String]] = [:]
    private var deletedObjectIds: [Int: [Int64]] = [:]
    private var deletedGlobalIds: [Int: [(globalId: String, position: Int)]] = [:]
    // The last applied delete of each key, and the last applied add of each GlobalID, by input position (edits come in
    // input order, so the last one noted).
    private var lastDeleteByObjectId: [Int: [Int64: Int]] = [:]
    private var lastDeleteByGlobalId: [Int: [String: Int]] = [:]
    private var lastAddByGlobalId: [Int: [String: Int]] = [:]

    /// Takes in the journal's next edit (in input order).
    mutating func note(_ edit: JournalEdit) {
        let layer = edit.planned.layer
        let position = edit.planned.position.index
        switch (edit.planned.kind, edit.status) {
        case (.add, .applied):
            if let id = edit.planned.globalId {
                applied[layer, default: []].append(Add(globalId: id, objectId: edit.resultObjectId, position: position))
                lastAddByGlobalId[layer, default: [:]][id] = position
            }
        case (.add, .pending), (.add, .unknown):
            if let id = edit.planned.globalId { unsettled[layer, default: []].append(id) }
        case (.add, _):
            if let id = edit.planned.globalId { unapplied[layer, default: []].append(id) }
        case (.delete, .applied):
            if let id = edit.planned.objectId {
                deletedObjectIds[layer, default: []].append(id)
                lastDeleteByObjectId[layer, default: [:]][id] = position
            } else if let id = edit.planned.globalId {
                deletedGlobalIds[layer, default: []].append((id, position))
                lastDeleteByGlobalId[layer, default: [:]][id] = position
            }
        default: break
        }
    }

    /// What to check of the edits noted: superseded ones left out (and counted), layers left with nothing to check of
    /// a kind left out of that kind.
    func expectation() -> Expectation {
        var expectation = Expectation(unappliedAdds: unapplied, unsettledAdds: unsettled, deletedObjectIds: deletedObjectIds)
        for (layerId, deletes) in deletedGlobalIds {
            // A delete whose GlobalID a later add of the input used again is not expected to leave it gone.
            let kept = deletes.filter { delete in (lastAddByGlobalId[layerId]?[delete.globalId] ?? -1) < delete.position }
            expectation.superseded += deletes.count - kept.count
            if !kept.isEmpty { expectation.deletedGlobalIds[layerId] = kept.map(\.globalId) }
        }
        for (layerId, all) in applied {
            // An add that a later delete of the input removed is not expected to be there.
            let adds = all.filter { add in
                let byGlobalId = lastDeleteByGlobalId[layerId]?[add.globalId].map { $0 > add.position } ?? false
                let byObjectId = add.objectId.flatMap { lastDeleteByObjectId[layerId]?[$0] }.map { $0 > add.position } ?? false
                return !(byGlobalId || byObjectId)
            }
            expectation.superseded += all.count - adds.count
            if !adds.isEmpty { expectation.appliedAdds[layerId] = adds }
        }
        return expectation
    }
}
