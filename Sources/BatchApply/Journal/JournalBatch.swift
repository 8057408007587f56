/// Where an edit stands in the journal.
package enum EditStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Planned, not known to be applied yet.
    case pending
    /// In the service, with its objectId.
    case applied
    /// The service refused it (an ArcGIS code and description); final, never resent.
    case rejected
    /// Failed after every retry (the service kept failing); `--resume` tries it again.
    case failed
    /// Its fate is unknown (an ambiguous failure the client would not resend blindly); `--resume` reconciles it
    /// against the service first.
    case unknown

    /// Whether the edit still needs work on resume.
    var isOpen: Bool { self == .pending || self == .failed || self == .unknown }
}

/// An edit as the journal holds it: the plan and what became of it.
package struct JournalEdit: Sendable, Hashable {
    package var planned: PlannedEdit
    package var batch: Int
    package var status: EditStatus
    /// The objectId the service gave an applied add (or the key of an update or delete).
    package var resultObjectId: Int64?
    /// For rejected and failed edits: the ArcGIS code, when the service gave one.
    package var code: Int?
    /// For rejected, failed and unknown edits: why.
    package var reason: String?

    package init(planned: PlannedEdit, batch: Int, status: EditStatus, resultObjectId: Int64? = nil, code: Int? = nil, reason: String? = nil) {
        self.planned = planned
        self.batch = batch
        self.status = status
        self.resultObjectId = resultObjectId
        self.code = code
        self.reason = reason
    }
}

/// What became of one edit, to record.
package struct EditRecord: Sendable, Hashable {
    /// The edit's position in the input (its key in the journal).
    package var index: Int
    package var status: EditStatus
    package var objectId: Int64?
    package var code: Int?
    package var reason: String?

    package init(index: Int, status: EditStatus, objectId: Int64? = nil, code: Int? = nil, reason: String? = nil) {
        self.index = index
        self.status = status
        self.objectId = objectId
        self.code = code
        self.reason = reason
    }
}

/// A batch: the edits of one applyEdits request.
package struct JournalBatch: Sendable, Hashable {
    package enum State: String, Sendable, Hashable, Codable {
        /// Planned; never sent.
        case planned
        /// Sent, or being sent, with no outcome recorded: in doubt after a crash, reconciled on resume.
        case sending
        /// Every edit has an outcome recorded.
        case done
    }

    package var id: Int
    package var layer: Int
    package var useGlobalIds: Bool
    package var state: State
    /// The edits still open (pending, failed or unknown), in input order.
    package var edits: [JournalEdit]
    /// Whether the batch is sent as one service-level applyEdits, all or nothing: groups of parents, their related
    /// records and files.
    package var atomic: Bool = false
    /// For an atomic batch: the files to attach to its open adds.
    package var attachments: [PlannedAttachment] = []
    /// Whether it is sent only once no batch before it is in flight: it edits a feature that an earlier batch of the
    /// same input edits (an add and then an update, an update and then a delete), which must reach the service first.
    package var barrier: Bool = false
}

/// What became of one file to attach.
package struct FileRecord: Sendable, Hashable {
    /// The attachment's GlobalID (its key in the journal).
    package var globalId: String
    package var status: EditStatus
    package var reason: String?

    package init(globalId: String, status: EditStatus, reason: String? = nil) {
        self.globalId = globalId
        self.status = status
        self.reason = reason
    }
}

/// The journal's counts of edits by status.
package struct JournalCounts: Sendable, Hashable, Codable {
    package var planned = 0
    package var pending = 0
    package var applied = 0
    package var rejected = 0
    package var failed = 0
    package var unknown = 0

    package init() {}

    /// Edits not settled: pending, failed or of unknown outcome.
    package var open: Int { pending + failed + unknown }
}
