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
/// With `related`, an add keyed to a parent that the same input adds (through one of the service's one-to-one or
/// one-to-many relationships: the child's key field holds the parent's key, often its GlobalID) joins its parent's
/// group; with `attachments`, an add's files join its group too. Each group goes whole into one atomic batch (a
/// service-level applyEdits with `rollbackOnFailure=true`), so parents, children and files arrive together or not at
/// all. Groups are batched once the whole input is read, since a child may come before its parent.
///
/// Several edits of one feature keep the input's order: an edit that names a feature an earlier batch names (an add by
/// the GlobalID the input gave it, then an update; an update by object ID, then a delete) makes its batch a barrier,
/// sent only once no batch before it is in flight. Within one batch ArcGIS applies adds, then updates, then deletes.
/// An update or delete of a feature added in a group is refused as a problem: groups go after the other batches.
///
/// A value owned by one task; it streams: at most one chunk of records being checked (256, or 8 MiB of text) and one
/// page of edits are held before they are written (with groups, the positions of grouped edits and the keys of parents
/// are held too).
public struct ApplyPlanner: Sendable {
    /// The layers edits may go to, by id.
    public let layers: [Int: LayerInfo]
    /// The layer of records that name none.
    public let defaultLayer: Int
    public let batchSize: Int
    /// Checks and converts a feature's attributes for its layer (types, domains, required fields): the converted
    /// feature and every problem found. Called on several threads at once, in no fixed order: it must be a pure
    /// function of its arguments.
    public typealias Coercion = @Sendable (Feature, LayerInfo, InputEdit.Kind) -> (Feature, [String])
    let coerce: Coercion
    /// Whether adds keyed to a parent in the same input go with it.
    public var related = false
    /// Whether attributes that name no field of their layer are left out, rather than making the record invalid.
    public var dropUnknownFields = false
    /// The files to attach, and the input attribute that names them.
    public var attachments: (directory: AttachmentDirectory, keyField: String)?
    /// Files up to this many bytes travel inside the request (larger ones through uploads).
    public var uploadThreshold: Int64 = 10_000_000
    /// The most bytes of files an atomic batch carries inside its request, whatever its edit count.
    public var inlineBytesPerBatch: Int64 = 32 << 20
    /// Threads that decode and check records (parse, convert, check against the layer, write the payload) while
    /// planning: the machine's cores by default, at most 16. Records are read, and planned, in input order on the
    /// calling thread; the plan is the same whatever the number.
    public var checkingThreads = ProcessInfo.processInfo.activeProcessorCount

    /// Records read, then decoded and checked together (on ``checkingThreads`` threads): up to this many, and up to
    /// ``checkingChunkBytes`` of their text, so a chunk of large polygons stays small. Each chunk wakes the other
    /// checking threads and waits for them: at 256 a chunk, that was a seventh of a dry run of 100,000 points.
    static let checkingChunk = 1024
    static let checkingChunkBytes = 8 << 20

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
        /// Groups sent atomically (a parent with related records or files), and the files attached to them.
        public var groups = 0
        public var attachments = 0

        public var editCount: Int { edits.values.reduce(0, +) }
    }

    /// A planner for edits to `layers` (records that name no layer go to `defaultLayer`).
    /// - Parameter coerce: how attributes are fitted to their layer; nil: ``FieldCoercion/coerce(_:kind:layer:)``.
    public init(layers: [Int: LayerInfo], defaultLayer: Int, batchSize: Int, coerce: Coercion? = nil) {
        self.layers = layers
        self.defaultLayer = defaultLayer
        self.batchSize = max(1, batchSize)
        self.coerce = coerce ?? { feature, layer, kind in FieldCoercion.coerce(feature, kind: kind, layer: layer) }
        // The fast path checks as FieldCoercion does, so it goes only with it.
        pointAdds = coerce == nil ? layers[defaultLayer].flatMap { PointAdds(layer: $0, id: defaultLayer) } : nil
    }

    /// The fast path for GeoJSON point adds to the default layer, when that layer is one it serves.
    let pointAdds: PointAdds?
    /// Whether records may take ``pointAdds`` (for tests that compare it with the general path).
    package var fastPath = true

    /// Batches the plan has made complete and committed to the journal: from then on they may be sent while the rest
    /// of the input is still being planned.
    public struct ReadyBatches: Sendable, Hashable {
        public var ids: [Int]
        /// The edits in them.
        public var edits: Int
    }

    /// Reads every record of `source`, checks it and, when `journal` is given, writes the plan (and, when
    /// `recordProblems`, the problems) to it. Nothing is sent.
    ///
    /// The plan is the same for the same input, so a plan interrupted part-way is made again over the rows already
    /// written (the journal keeps those as they are), and ids of batches made ready again are given to `ready` again.
    /// - Parameters:
    ///   - stop: Asked before each record; when it answers true, planning stops with `CancellationError` (the journal
    ///     holds whole pages only).
    ///   - ready: Given batches once they can take no more edits and are committed: a batch of plain edits when it is
    ///     full or the input has ended, the atomic batches of groups once the whole input is read.
    /// - Throws: ``ApplyError/journal(_:)`` and GRDB's errors when the journal cannot be written; `CancellationError`.
    public func plan(
        _ source: inout some EditReader, into journal: ApplyJournal?, recordProblems: Bool = false, stop: () -> Bool = { false },
        ready: @escaping @Sendable (ReadyBatches) -> Void = { _ in }
    ) throws -> Summary {
        var summary = Summary()
        // Pages are written while the next is read; batches are handed over once the page completing them is in.
        let writer = journal.map { _ in PageWriter() }
        defer { writer?.close() }
        // Batches that can take no more edits, given to `ready` once the page that completes them is written.
        var complete = ReadyBatches(ids: [], edits: 0)
        var nextBatch = 0
        // The open batch of each (layer, identified by GlobalID) group, and how full it is.
        var open: [BatchKey: (id: Int, count: Int)] = [:]
        var page: [(edit: PlannedEdit, batch: Int?)] = []
        var pageAttachments: [PlannedAttachment] = []
        var newBatches: [(id: Int, layer: Int, useGlobalIds: Bool)] = []
        var problems: [InputProblem] = []
        // Batches that edit a feature an earlier batch edits, marked in the journal with the page.
        var barriers: Set<Int> = []
        // The features the input names by a key, with the last edit naming each: GlobalIDs the input gave its adds
        // (a repeated one would be reported applied without being added; derived GlobalIDs differ by position), and
        // the GlobalIDs and object IDs of updates and deletes (a later edit of the same feature must reach the
        // service after it). Held in memory: one entry per such feature.
        var keyed: [FeatureKey: KeyUse] = [:]
        var groups = Groups()
        let links = related ? RelationshipLinks(layers) : RelationshipLinks()

        func flush() throws {
            if let journal, let writer {
                let (edits, batches, files, found, done) = (page, newBatches, pageAttachments, recordProblems ? problems : [], complete)
                let waits = barriers.sorted()
                try writer.submit {
                    if !edits.isEmpty || !batches.isEmpty || !waits.isEmpty {
                        try journal.append(edits, batches: batches, attachments: files, barriers: waits)
                    }
                    try journal.append(problems: found)
                    if !done.ids.isEmpty { ready(done) }
                }
            } else if !complete.ids.isEmpty {
                ready(complete)
            }
            complete = ReadyBatches(ids: [], edits: 0)
            barriers.removeAll(keepingCapacity: true)
            page.removeAll(keepingCapacity: true)
            pageAttachments.removeAll(keepingCapacity: true)
            newBatches.removeAll(keepingCapacity: true)
            problems.removeAll(keepingCapacity: true)
        }
        func problem(_ problem: InputProblem) {
            summary.problemCount += 1
            if summary.problems.count < Self.problemsKept { summary.problems.append(problem) }
            problems.append(problem)
        }
        /// Marks a batch as taking no more edits.
        func close(_ slot: (id: Int, count: Int)) {
            complete.ids.append(slot.id)
            complete.edits += slot.count
        }
        /// The batch `planned` goes in; with `fresh`, a new one (the open batch is complete as it is).
        func batch(_ planned: PlannedEdit, fresh: Bool = false) -> Int {
            let key = BatchKey(planned)
            var slot = open[key] ?? (id: -1, count: batchSize)
            if fresh && slot.id >= 0 && slot.count < batchSize {
                close(slot)
                slot.count = batchSize
            }
            if slot.count >= batchSize {
                slot = (id: nextBatch, count: 0)
                nextBatch += 1
                newBatches.append((slot.id, key.layer, key.useGlobalIds))
            }
            slot.count += 1
            open[key] = slot
            if slot.count == batchSize { close(slot) }
            return slot.id
        }

        // Records are read here in chunks, decoded and checked on `checkingThreads` threads, then planned here in order.
        let threads = max(1, min(checkingThreads, 16))
        var chunk: [ReadRecord] = []
        var exhausted = false
        // The chunk's records checked, last first: taken with `popLast()`, which moves them out instead of copying.
        var checked: [Checked] = []
        func nextChecked() throws -> Checked? {
            if stop() { throw CancellationError() }
            if checked.isEmpty {
                guard !exhausted else { return nil }
                chunk.removeAll(keepingCapacity: true)
                var bytes = 0
                while chunk.count < Self.checkingChunk && bytes < Self.checkingChunkBytes {
                    guard let read = source.nextRead() else {
                        exhausted = true
                        break
                    }
                    bytes += read.byteCount
                    chunk.append(read)
                }
                if chunk.isEmpty { return nil }
                checked = checkAll(chunk, threads: threads)
                checked.reverse()
            }
            return checked.popLast()
        }

        while let record = try nextChecked() {
            summary.records += 1
            switch record {
            case .unreadable(let failure):
                problem(failure)
            case .refused(let failure, let edit):
                problem(failure)
                if edit.kind == .add {
                    for key in links.parentKeys(of: edit.feature, layer: edit.layer ?? defaultLayer) { groups.invalidParents[key] = edit.position.index }
                }
            case .ready(let edit, let planned, let givenGlobalId, let feature, let attachmentKey):
                // An add whose GlobalID is derived cannot be named by another edit of the input.
                let key = planned.kind == .add && !givenGlobalId ? nil : FeatureKey(planned)
                let earlier = key.flatMap { keyed[$0] }
                if planned.kind == .add, let added = earlier?.addedAt, let globalId = planned.globalId {
                    problem(edit.problem("its GlobalID \(globalId) is that of record \(added + 1) too; each add needs its own"))
                    for key in links.parentKeys(of: feature, layer: planned.layer) { groups.invalidParents[key] = edit.position.index }
                    continue
                }
                if planned.kind != .add, let earlier, earlier.batch == nil {
                    problem(
                        edit.problem(
                            "it edits the feature that record \(earlier.position + 1) adds with its related records or files, which go in a request of their own after the other edits. Fix: apply this edit in a second run"
                        ))
                    continue
                }
                var files: [PlannedAttachment] = []
                if let attachmentKey, let (directory, _) = attachments, let globalId = planned.globalId {
                    files = directory.attachments(for: attachmentKey, layer: planned.layer, position: planned.position.index, parentGlobalId: globalId)
                }
                let parentKeys = planned.kind == .add ? links.parentKeys(of: feature, layer: planned.layer) : []
                let childKeys = planned.kind == .add ? links.childKeys(of: feature, layer: planned.layer) : []
                if let invalid = childKeys.lazy.compactMap({ groups.invalidParents[$0] }).first {
                    problem(edit.problem("its parent, record \(invalid + 1), is invalid; a record goes with its parent or not at all"))
                    for key in parentKeys { groups.invalidParents[key] = edit.position.index }
                    continue
                }
                if parentKeys.isEmpty && childKeys.isEmpty && files.isEmpty {
                    // Within one batch the service applies adds, then updates, then deletes: an edit that must come
                    // after an edit of the same feature that the batch would apply later (a delete, then an update or
                    // an add again) starts a batch of its own.
                    let outOfOrder = earlier.map { $0.kind.order > planned.kind.order && $0.batch == open[BatchKey(planned)]?.id } ?? false
                    let id = batch(planned, fresh: outOfOrder)
                    // An edit of a feature that an earlier batch edits waits for it.
                    if let before = earlier?.batch, before != id { barriers.insert(id) }
                    if let key {
                        keyed[key] = KeyUse(
                            position: planned.position.index, batch: id, kind: planned.kind,
                            addedAt: planned.kind == .add ? planned.position.index : earlier?.addedAt)
                    }
                    page.append((planned, id))
                } else {
                    if let key { keyed[key] = KeyUse(position: planned.position.index, batch: nil, kind: .add, addedAt: planned.position.index) }
                    // Batched once the whole input is read: its children may come later, or its parent.
                    page.append((planned, nil))
                    pageAttachments += files
                    summary.attachments += files.count
                    let inline = files.reduce(Int64(0)) { total, file in
                        let size = attachments?.directory.size(of: file) ?? 0
                        return total + (size <= uploadThreshold ? size : 0)
                    }
                    groups.add(
                        planned.position.index, layer: planned.layer, weight: 1 + files.count, bytes: inline, parentKeys: parentKeys, childKeys: childKeys)
                }
                summary.edits[planned.kind, default: 0] += 1
            }
            if page.count >= Self.pageSize || problems.count >= Self.pageSize { try flush() }
        }
        // The input has ended: every batch still taking edits is complete as it is.
        for slot in open.values.sorted(by: { $0.id < $1.id }) where slot.count < batchSize { close(slot) }
        try flush()
        try writer?.finish()
        // Children that came before their parent, which then was invalid, cannot go either.
        let orphans = groups.resolve().map { (position: $0.position, reason: "its parent, record \($0.parent + 1), is invalid; a record goes with its parent or not at all") }
        for orphan in orphans {
            summary.problemCount += 1
            if summary.problems.count < Self.problemsKept { summary.problems.append(InputProblem(position: InputPosition(index: orphan.position), reason: orphan.reason)) }
            summary.edits[.add, default: 0] -= 1
        }
        if !orphans.isEmpty { try journal?.remove(orphans, asProblems: recordProblems) }
        // Each group whole in one atomic batch, groups in input order, up to batchSize edits and files a batch (a
        // bigger group goes alone).
        let firstAtomic = nextBatch
        var groupedEdits = 0
        var members: [(position: Int, group: Int, batch: Int)] = []
        var fresh: [(id: Int, layer: Int)] = []
        var current = -1
        var weight = 0
        var bytes: Int64 = 0
        for root in groups.order {
            guard let group = groups.members[root] else { continue }
            let groupWeight = group.reduce(0) { $0 + $1.weight }
            let groupBytes = group.reduce(Int64(0)) { $0 + $1.bytes }
            if current < 0 || weight + groupWeight > batchSize || bytes + groupBytes > inlineBytesPerBatch {
                current = nextBatch
                nextBatch += 1
                fresh.append((current, group[0].layer))
                weight = 0
                bytes = 0
            }
            weight += groupWeight
            bytes += groupBytes
            if group.count > 1 || group[0].weight > 1 { summary.groups += 1 }
            members += group.map { ($0.position, root, current) }
            groupedEdits += group.count
            if members.count >= Self.pageSize {
                try journal?.assign(members, batches: fresh)
                members.removeAll(keepingCapacity: true)
                fresh.removeAll(keepingCapacity: true)
            }
        }
        if !members.isEmpty || !fresh.isEmpty { try journal?.assign(members, batches: fresh) }
        if nextBatch > firstAtomic { ready(ReadyBatches(ids: Array(firstAtomic..<nextBatch), edits: groupedEdits)) }
        summary.batches = nextBatch
        return summary
    }

    /// The stream of batches an edit goes in: its layer, and whether it is named by GlobalID.
    struct BatchKey: Hashable {
        var layer: Int
        var useGlobalIds: Bool

        init(_ edit: PlannedEdit) {
            layer = edit.layer
            useGlobalIds = edit.usesGlobalIds
        }
    }

    /// The last edit of the input that named a feature: its position, its batch (nil while in a group) and its kind;
    /// and the position of the add that gave the feature its GlobalID, if the input has one.
    struct KeyUse {
        var position: Int
        var batch: Int?
        var kind: InputEdit.Kind
        var addedAt: Int?
    }

    /// A record read and checked, ready to plan.
    package enum Checked: Sendable {
        /// The record could not be read or decoded.
        case unreadable(InputProblem)
        /// The record does not fit its layer (`edit` as checked: without an attachment key the layer lacks).
        case refused(InputProblem, InputEdit)
        /// The record made into a planned edit; `edit` is the record without its feature (planning needs its
        /// position, text, kind and layer), `feature` its converted feature, `attachmentKey` the value that names its
        /// files.
        case ready(edit: InputEdit, planned: PlannedEdit, givenGlobalId: Bool, feature: Feature, attachmentKey: JSONValue?)
    }

    /// `records` decoded and checked, in their order, the work shared out over `threads` threads (the calling one
    /// among them) in contiguous runs.
    package func checkAll(_ records: [ReadRecord], threads: Int) -> [Checked] {
        let threads = min(threads, records.count)
        guard threads > 1 else { return records.map(check) }
        return [Checked](unsafeUninitializedCapacity: records.count) { buffer, initialized in
            // Each thread initializes only its own run of the buffer, which outlives them all.
            nonisolated(unsafe) let start = buffer.baseAddress!
            DispatchQueue.concurrentPerform(iterations: threads) { @Sendable part in
                for index in (records.count * part / threads)..<(records.count * (part + 1) / threads) {
                    (start + index).initialize(to: check(records[index]))
                }
            }
            initialized = records.count
        }
    }

    /// One record decoded and checked.
    package func check(_ record: ReadRecord) -> Checked {
        // An add with nothing more to it than its feature (no related records or files to find) may take the fast path.
        if fastPath, related == false, attachments == nil, let pointAdds, case .deferred(_, let text?, _) = record, let planned = pointAdds.plan(text) {
            let edit = InputEdit(kind: .add, feature: Feature(attributes: [:]), position: text.position, source: planned.source)
            return .ready(edit: edit, planned: planned, givenGlobalId: false, feature: Feature(attributes: [:]), attachmentKey: nil)
        }
        switch record.decode() {
        case .failure(let problem):
            return .unreadable(problem)
        case .success(var edit):
            let layerId = edit.layer ?? defaultLayer
            // The attachment key is an input attribute; unless the layer has such a field it is not sent.
            var attachmentKey: JSONValue?
            if let (_, keyField) = attachments {
                if edit.kind == .add, layers[layerId]?.hasAttachments == true { attachmentKey = edit.feature[attribute: keyField] }
                if layers[layerId]?.field(named: keyField) == nil {
                    edit.feature.attributes = edit.feature.attributes.filter { !$0.key.caseInsensitiveEquals(keyField) }
                }
            }
            switch prepare(edit) {
            case .failure(let problem): return .refused(problem, edit)
            case .success(let (planned, givenGlobalId, feature)):
                // The record's own feature is not needed any more: the chunk holds less.
                edit.feature = Feature(attributes: [:])
                return .ready(edit: edit, planned: planned, givenGlobalId: givenGlobalId, feature: feature, attachmentKey: attachmentKey)
            }
        }
    }

    /// One record checked against its layer and made into a planned edit; `givenGlobalId` tells whether the record
    /// carried its GlobalID (rather than getting a derived one).
    func prepare(_ edit: InputEdit) -> Result<(edit: PlannedEdit, givenGlobalId: Bool, feature: Feature), InputProblem> {
        let layerId = edit.layer ?? defaultLayer
        func fail(_ reason: String) -> Result<(edit: PlannedEdit, givenGlobalId: Bool, feature: Feature), InputProblem> {
            .failure(edit.problem(reason))
        }
        guard let layer = layers[layerId] else {
            return fail("layer \(layerId) is not in the service; layers are \(layers.keys.sorted().map(String.init).joined(separator: ", "))")
        }
        let objectIdField = layer.objectIdField
        let globalIdField = layer.globalIdField
        var feature = edit.feature
        // Keys may be spelled as the reader wrote them (OBJECTID, GlobalID) or as the layer does. They travel outside
        // the attributes; most records (adds) have none, so look once before looking each up and copying.
        let keyNames = Self.keyNames(of: layer)
        func isKey(_ name: String) -> Bool { keyNames.contains { $0.caseInsensitiveEquals(name) } }
        var objectIdValue: JSONValue?
        var globalIdValue: JSONValue?
        if feature.attributes.keys.contains(where: isKey) {
            objectIdValue = feature[attribute: objectIdField] ?? feature[attribute: "OBJECTID"]
            globalIdValue = globalIdField.flatMap { feature[attribute: $0] } ?? feature[attribute: "GlobalID"]
            feature.attributes = feature.attributes.filter { !isKey($0.key) }
        }
        // Most records name only the layer's fields: look once before copying.
        if dropUnknownFields, feature.attributes.keys.contains(where: { layer.field(named: $0) == nil }) {
            feature.attributes = feature.attributes.filter { name, _ in layer.field(named: name) != nil }
        }
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
        // The service refuses a geometry of another type than its layer's: said now, with the record, not by a
        // rejection once sent.
        if edit.kind != .delete, let expected = layer.geometryType, let given = feature.geometry?.geometryType, given != expected {
            return fail(
                "its geometry is \(Self.article(given)), and layer \(layerId) (\(layer.name)) takes \(Self.noun(expected))s. Fix: give it \(Self.article(expected)) geometry, or apply it to a layer of \(Self.noun(given))s"
            )
        }
        var payload = ""
        if edit.kind != .delete {
            var writer = JSONWriter(capacity: 256)
            writer.write(feature)
            payload = writer.string
        }
        let planned = PlannedEdit(
            position: edit.position, kind: edit.kind, layer: layerId, globalId: globalId, objectId: objectId, payload: payload,
            source: edit.source)
        return .success((planned, givenGlobalId, feature))
    }

    /// The names an input may give `layer`'s keys: the layer's own, and the reader's (OBJECTID, GlobalID).
    public static func keyNames(of layer: LayerInfo) -> [String] {
        [layer.objectIdField, EsriJSONFeature.objectIdKey, layer.globalIdField ?? EsriJSONFeature.globalIdKey, EsriJSONFeature.globalIdKey]
    }

    /// How a geometry type is named to the user: point, multipoint, line, polygon, envelope.
    static func noun(_ type: GeometryType) -> String {
        switch type {
        case .point: "point"
        case .multipoint: "multipoint"
        case .polyline: "line"
        case .polygon: "polygon"
        case .envelope: "envelope"
        }
    }

    /// ``noun(_:)`` with its article.
    static func article(_ type: GeometryType) -> String {
        (type == .envelope ? "an " : "a ") + noun(type)
    }

    static func reason(_ problems: [String]) -> String? {
        problems.isEmpty ? nil : problems.joined(separator: "; ")
    }
}
