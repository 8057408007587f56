/// One operation of a scenario's workload, with its settings and its weight in a mix.
///
/// Settings that do not apply to the kind keep their defaults (the parser rejects them in the file).
public struct OperationSpec: Sendable, Hashable {
    /// The feature-service operations a scenario can run.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
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

        /// Whether the operation works on features that already exist (so the scenario samples a pool of ids).
        var needsExistingFeatures: Bool {
            switch self {
            case .updateFeatures, .deleteFeatures, .queryRelatedRecords, .addAttachment, .queryAttachments, .relate: return true
            case .applyEdits, .addFeatures, .query, .deepInsert: return false
            }
        }
    }

    /// What a `relate` iteration does to the link.
    public enum RelateAction: String, Sendable, Hashable, CaseIterable {
        /// Link the feature to a partner as well (a foreign key set, or a relationship-table row added).
        case relate
        /// Remove the link to its current partner (the key nulled, or the row deleted).
        case unrelate
        /// Move the link from its current partner to another.
        case move
    }

    /// An attachment size: fixed, or uniform between two sizes.
    public struct SizeRange: Sendable, Hashable {
        public var min: Int64
        public var max: Int64
        public init(_ min: Int64, _ max: Int64? = nil) {
            self.min = min
            self.max = max ?? min
        }
    }

    public var kind: Kind
    /// The tag value of this operation in metrics; the kind's name unless `name:` gives another.
    public var label: String
    /// Relative share of iterations in a `mix` (1 for a single `exec`).
    public var weight: Int = 1
    public var layer: Int = 0
    /// applyEdits: edits per request of each kind.
    public var adds = 0
    public var updates = 0
    public var deletes = 0
    /// Features (or object IDs) per request for the single-purpose endpoints, related queries and attachment queries.
    public var batchSize = 1
    public var rollbackOnFailure = true
    /// Adds carry client GlobalIDs (`useGlobalIds=true`), so a retried add is recognised instead of duplicated.
    public var clientGlobalIds = false
    /// The share of adds generated to break a restrictive contingent value or a domain; client-side validation
    /// refuses them (counted in `edits_invalid`), as the ArcGIS Maps SDKs do, and they are never sent.
    public var invalidRate = 0.0
    /// query settings.
    public var whereClause = "1=1"
    public var outFields = ["*"]
    public var returnGeometry = true
    public var returnCountOnly = false
    public var returnIdsOnly = false
    /// A random envelope covering this fraction (0…1] of the layer's extent in each direction.
    public var envelope: Double?
    /// Page through every page of the answer, this many rows per request.
    public var pageSize: Int?
    /// queryRelatedRecords: the relationship id.
    public var relationship: Int?
    /// addAttachment settings.
    public var attachmentSize = SizeRange(64 * 1024)
    public var contentType = "image/jpeg"
    public var uploadThreshold: Int64 = 10 * 1024 * 1024
    /// queryAttachments: download every attachment listed.
    public var download = false
    /// relate: what to do to the link, and whether to check the relationship's constraints before sending.
    public var relateAction = RelateAction.relate
    public var validate = true
    /// deepInsert: related records and attachment files added with each parent.
    public var children = 2
    public var attachments = 0

    public init(kind: Kind, label: String? = nil) {
        self.kind = kind
        self.label = label ?? kind.rawValue
    }

    /// Whether an iteration does little but wait on its request: it generates at most ``driverThreadEditLimit`` edits
    /// and reads a short answer (no query pages, files or attachments). A scenario of such operations runs its VUs on
    /// the transport's driver thread (``FeatureServiceClient/HTTPTransport/taskExecutor``), saving each round trip
    /// two thread wakeups; others run on the global executor, so their work never delays another VU's response.
    public var fitsDriverThread: Bool {
        switch kind {
        case .applyEdits, .addFeatures, .updateFeatures, .deleteFeatures: return editsPerIteration <= Self.driverThreadEditLimit
        case .query, .queryRelatedRecords, .addAttachment, .queryAttachments, .relate, .deepInsert: return false
        }
    }

    /// The most edits an iteration on the driver thread generates: 100 adds take about 50 µs to write.
    public static let driverThreadEditLimit = 100

    /// Edits one iteration sends when each succeeds (0 for reads).
    public var editsPerIteration: Int {
        switch kind {
        case .applyEdits: return adds + updates + deletes
        case .addFeatures, .updateFeatures, .deleteFeatures: return batchSize
        case .addAttachment, .relate: return 1
        case .deepInsert: return 1 + children + attachments
        case .query, .queryRelatedRecords, .queryAttachments: return 0
        }
    }

    /// Adds one iteration sends.
    public var addsPerIteration: Int {
        switch kind {
        case .applyEdits: return adds
        case .addFeatures: return batchSize
        case .deepInsert: return 1
        default: return 0
        }
    }
}
