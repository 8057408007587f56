package import FeatureModel
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
///
/// ```
/// EditReader ─▶ CheckedRecords ─▶ PlanBuilder ──────────────▶ pages ─▶ ApplyJournal (on a PageWriter thread)
///               reads in chunks;   EditOrder: duplicates,
///               check / prepare    fresh batches, barriers
///               on several         BatchAssigner: plain batches
///               threads            Groups, then AtomicBatcher once the input is read
/// ```
package struct ApplyPlanner: Sendable {
    /// The layers edits may go to, by id.
    package let layers: [Int: LayerInfo]
    /// The layer of records that name none.
    package let defaultLayer: Int
    package let batchSize: Int
    /// Checks and converts a feature's attributes for its layer (types, domains, required fields): the converted
    /// feature and every problem found. Called on several threads at once, in no fixed order: it must be a pure
    /// function of its arguments.
    package typealias Coercion = @Sendable (Feature, LayerInfo, InputEdit.Kind) -> (Feature, [String])
    let coerce: Coercion
    /// Whether adds keyed to a parent in the same input go with it.
    package var related = false
    /// Whether attributes that name no field of their layer are left out, rather than making the record invalid.
    package var dropUnknownFields = false
    /// The files to attach, and the input attribute that names them.
    package var attachments: (directory: AttachmentDirectory, keyField: String)?
    /// How adds without a GlobalID of their own get one (``DerivedGlobalID``): ordered, unless an earlier release
    /// applied the same input with hashed ones.
    package var globalIdScheme = DerivedGlobalID.Scheme.ordered
    /// Files up to this many bytes travel inside the request (larger ones through uploads).
    package var uploadThreshold: Int64 = 10_000_000
    /// The most bytes of files an atomic batch carries inside its request, whatever its edit count.
    var inlineBytesPerBatch: Int64 = 32 << 20
    /// Threads that decode and check records (parse, convert, check against the layer, write the payload) while
    /// planning: the machine's cores by default, at most 16. Records are read, and planned, in input order on the
    /// calling thread; the plan is the same whatever the number.
    package var checkingThreads = ProcessInfo.processInfo.activeProcessorCount

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
    package struct Summary: Sendable, Hashable {
        /// Records read (edits and problems).
        package var records = 0
        /// Edits planned, by kind.
        package var edits: [InputEdit.Kind: Int] = [:]
        package var batches = 0
        /// The first ``ApplyPlanner/problemsKept`` problems.
        package var problems: [InputProblem] = []
        package var problemCount = 0
        /// Groups sent atomically (a parent with related records or files), and the files attached to them.
        package var groups = 0
        package var attachments = 0

        package var editCount: Int { edits.values.reduce(0, +) }
    }

    /// A planner for edits to `layers` (records that name no layer go to `defaultLayer`).
    /// - Parameter coerce: how attributes are fitted to their layer; nil: ``FieldCoercion/coerce(_:kind:layer:)``.
    package init(layers: [Int: LayerInfo], defaultLayer: Int, batchSize: Int, coerce: Coercion? = nil) {
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
    var fastPath = true

    /// Batches the plan has made complete and committed to the journal: from then on they may be sent while the rest
    /// of the input is still being planned.
    package struct ReadyBatches: Sendable, Hashable {
        package var ids: [Int]
        /// The edits in them.
        package var edits: Int
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
    package func plan(
        _ source: inout some EditReader, into journal: ApplyJournal?, recordProblems: Bool = false, stop: () -> Bool = { false },
        ready: @escaping @Sendable (ReadyBatches) -> Void = { _ in }
    ) throws -> Summary {
        // Pages are written while the next is read; batches are handed over once the page completing them is in.
        let writer = journal.map { _ in PageWriter() }
        defer { writer?.close() }
        var builder = PlanBuilder(planner: self)
        func flush() throws {
            let page = builder.takePage()
            if let journal, let writer {
                try writer.submit {
                    if page.hasPlan {
                        try journal.append(page.edits, batches: page.batches, attachments: page.attachments, barriers: page.barriers)
                    }
                    try journal.append(problems: recordProblems ? page.problems : [])
                    if !page.ready.ids.isEmpty { ready(page.ready) }
                }
            } else if !page.ready.ids.isEmpty {
                ready(page.ready)
            }
        }
        // Records are read here in chunks, decoded and checked on `checkingThreads` threads, then planned here in order.
        var records = CheckedRecords(planner: self)
        while true {
            if stop() { throw CancellationError() }
            guard let record = records.next(from: &source) else { break }
            builder.take(record)
            if builder.pageIsFull { try flush() }
        }
        builder.finishInput()
        try flush()
        try writer?.finish()
        // Children that came before their parent, which then was invalid, cannot go either.
        let orphans = builder.dropOrphans()
        if !orphans.isEmpty { try journal?.remove(orphans, asProblems: recordProblems) }
        let atomic = try builder.batchGroups { members, batches in try journal?.assign(members, batches: batches) }
        if !atomic.ids.isEmpty { ready(atomic) }
        return builder.summary
    }
}
