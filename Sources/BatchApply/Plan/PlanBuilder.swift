import FeatureModel

/// The planner's decisions, one checked record at a time in input order: whether the record goes (or why not), which
/// batch it joins or whether it waits for the whole input as part of a group, and which batches become barriers.
/// What it decides gathers in a page that the planner writes to the journal (``takePage()``).
///
/// It asks the attachment directory for files and their sizes; it reads and writes nothing else.
struct PlanBuilder {
    /// What to write to the journal next.
    struct Page {
        /// Each edit with its batch, or nil for an edit of a group (batched once the input is read).
        var edits: [(edit: PlannedEdit, batch: Int?)] = []
        /// Batches first named in this page.
        var batches: [(id: Int, layer: Int, useGlobalIds: Bool)] = []
        var attachments: [PlannedAttachment] = []
        /// Problems found since the last page.
        var problems: [InputProblem] = []
        /// Batches that edit a feature an earlier batch edits, in order.
        var barriers: [Int] = []
        /// Batches that can take no more edits, to hand over once this page is written.
        var ready = ApplyPlanner.ReadyBatches(ids: [], edits: 0)

        /// Whether there is any plan to write (edits, batches or barriers).
        var hasPlan: Bool { !edits.isEmpty || !batches.isEmpty || !barriers.isEmpty }
    }

    let planner: ApplyPlanner
    /// What was planned, but for the adds of the fast path (``ApplyPlanner/Checked/point(_:)``), which are counted
    /// in `pointAdds` (one dictionary update a record was a hash of its kind each time).
    private var tally = ApplyPlanner.Summary()
    private var pointAdds = 0
    /// What was planned.
    var summary: ApplyPlanner.Summary {
        var summary = tally
        if pointAdds > 0 { summary.edits[.add, default: 0] += pointAdds }
        return summary
    }
    private(set) var batches: BatchAssigner
    private var order = EditOrder()
    private(set) var groups = Groups()
    private let links: RelationshipKeyFields
    private var page: [(edit: PlannedEdit, batch: Int?)] = []
    private var pageAttachments: [PlannedAttachment] = []
    private var problems: [InputProblem] = []
    private var barriers: Set<Int> = []

    init(planner: ApplyPlanner) {
        self.planner = planner
        batches = BatchAssigner(batchSize: planner.batchSize)
        links = planner.related ? RelationshipKeyFields(planner.layers) : RelationshipKeyFields()
    }

    /// Whether the page is full (``ApplyPlanner/pageSize`` edits or problems): time to write it.
    var pageIsFull: Bool { page.count >= ApplyPlanner.pageSize || problems.count >= ApplyPlanner.pageSize }

    /// Plans the input's next record.
    mutating func take(_ record: consuming ApplyPlanner.Checked) {
        tally.records += 1
        switch consume record {
        case .point(let planned):
            // An add with a derived GlobalID (no other edit can name its feature), no related records and no files:
            // what the general path below decides for it, without looking it up.
            let id = batches.assign(planned)
            page.append((planned, id))
            pointAdds += 1
        case .unreadable(let failure):
            problem(failure)
        case .refused(let failure, let edit):
            problem(failure)
            if edit.kind == .add {
                for key in links.parentKeys(of: edit.feature, layer: edit.layer ?? planner.defaultLayer) {
                    groups.invalidParents[key] = edit.position.index
                }
            }
        case .ready(let edit, let planned, let givenGlobalId, let feature, let attachmentKey):
            take(edit, planned: planned, givenGlobalId: givenGlobalId, feature: feature, attachmentKey: attachmentKey)
        }
    }

    private mutating func take(_ edit: InputEdit, planned: PlannedEdit, givenGlobalId: Bool, feature: Feature, attachmentKey: JSONValue?) {
        let lookup = order.lookUp(planned, givenGlobalId: givenGlobalId)
        if let conflict = lookup.conflict {
            problem(edit.problem(conflict.reason))
            // Its children cannot go without it.
            if case .globalIdReused = conflict {
                for key in links.parentKeys(of: feature, layer: planned.layer) { groups.invalidParents[key] = edit.position.index }
            }
            return
        }
        var files: [PlannedAttachment] = []
        if let attachmentKey, let (directory, _) = planner.attachments, let globalId = planned.globalId {
            files = directory.attachments(
                for: attachmentKey, layer: planned.layer, position: planned.position.index, parentGlobalId: globalId, scheme: planner.globalIdScheme)
        }
        let parentKeys = planned.kind == .add ? links.parentKeys(of: feature, layer: planned.layer) : []
        let childKeys = planned.kind == .add ? links.childKeys(of: feature, layer: planned.layer) : []
        if let parent = childKeys.first(where: { groups.invalidParents[$0] != nil }), let invalid = groups.invalidParents[parent] {
            problem(edit.problem("its parent, record \(invalid + 1), is invalid; a record goes with its parent or not at all"))
            for key in parentKeys { groups.invalidParents[key] = edit.position.index }
            return
        }
        if parentKeys.isEmpty && childKeys.isEmpty && files.isEmpty {
            let id = batches.assign(planned, fresh: lookup.needsFreshBatch(openBatch: batches.openBatch(for: planned)))
            if lookup.makesBarrier(of: id) { barriers.insert(id) }
            order.record(lookup, batch: id)
            page.append((planned, id))
        } else {
            order.record(lookup, batch: nil)
            // Batched once the whole input is read: its children may come later, or its parent.
            page.append((planned, nil))
            pageAttachments += files
            tally.attachments += files.count
            let inline = files.reduce(Int64(0)) { total, file in
                let size = planner.attachments?.directory.size(of: file) ?? 0
                return total + (size <= planner.uploadThreshold ? size : 0)
            }
            groups.add(
                planned.position.index, layer: planned.layer, weight: 1 + files.count, bytes: inline, parentKeys: parentKeys, childKeys: childKeys)
        }
        tally.edits[planned.kind, default: 0] += 1
    }

    private mutating func problem(_ problem: InputProblem) {
        tally.problemCount += 1
        if tally.problems.count < ApplyPlanner.problemsKept { tally.problems.append(problem) }
        problems.append(problem)
    }

    /// The input has ended: every batch still taking edits is complete as it is.
    mutating func finishInput() {
        batches.completeAll()
    }

    /// What was decided since the last page, to write; the next page starts empty.
    mutating func takePage() -> Page {
        let taken = Page(
            edits: page, batches: batches.takeMade(), attachments: pageAttachments, problems: problems, barriers: barriers.sorted(),
            ready: batches.takeCompleted())
        barriers.removeAll(keepingCapacity: true)
        page.removeAll(keepingCapacity: true)
        pageAttachments.removeAll(keepingCapacity: true)
        problems.removeAll(keepingCapacity: true)
        return taken
    }

    /// Drops the adds held back by a parent that never came (``Groups/resolve()``), counting each as a problem.
    /// - Returns: their positions, each with why it cannot go.
    mutating func dropOrphans() -> [(position: Int, reason: String)] {
        let orphans = groups.resolve().map { orphan in
            (position: orphan.position, reason: "its parent, record \(orphan.parent + 1), is invalid; a record goes with its parent or not at all")
        }
        for orphan in orphans {
            tally.problemCount += 1
            if tally.problems.count < ApplyPlanner.problemsKept {
                tally.problems.append(InputProblem(position: InputPosition(index: orphan.position), reason: orphan.reason))
            }
            tally.edits[.add, default: 0] -= 1
        }
        return orphans
    }

    /// Puts the groups into atomic batches, after every plain batch (``AtomicBatcher``), handing each page of
    /// members to `assign` with the batches first named in it.
    /// - Returns: the atomic batches' ids and the edits in them.
    mutating func batchGroups(
        _ assign: ([(position: Int, group: Int, batch: Int)], [(id: Int, layer: Int)]) throws -> Void
    ) rethrows -> ApplyPlanner.ReadyBatches {
        var atomic = AtomicBatcher(batchSize: planner.batchSize, inlineBytesPerBatch: planner.inlineBytesPerBatch)
        var ready = ApplyPlanner.ReadyBatches(ids: [], edits: 0)
        var members: [(position: Int, group: Int, batch: Int)] = []
        var fresh: [(id: Int, layer: Int)] = []
        for root in groups.order {
            guard let group = groups.members[root] else { continue }
            let (batch, isNew) = atomic.place(group) { batches.reserve() }
            if isNew {
                fresh.append((batch, group[0].layer))
                ready.ids.append(batch)
            }
            if group.count > 1 || group[0].weight > 1 { tally.groups += 1 }
            members += group.map { ($0.position, root, batch) }
            ready.edits += group.count
            if members.count >= ApplyPlanner.pageSize {
                try assign(members, fresh)
                members.removeAll(keepingCapacity: true)
                fresh.removeAll(keepingCapacity: true)
            }
        }
        if !members.isEmpty || !fresh.isEmpty { try assign(members, fresh) }
        tally.batches = batches.nextBatch
        return ready
    }
}
