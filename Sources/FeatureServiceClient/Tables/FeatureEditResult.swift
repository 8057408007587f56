public import FeatureModel

/// What became of one pending edit when it was applied.
///
/// Applied edits leave the table's pending edits; failed ones (and those of unknown outcome) stay there with their
/// error, to be fixed and applied again.
public struct FeatureEditResult: Sendable, Hashable {
    /// The layer or table the edit went to.
    public var tableId: Int
    /// Add, update or delete.
    public var kind: PendingEdit.Kind
    /// The feature's object ID (for adds, the one the service assigned), when known.
    public var objectId: Int64?
    /// The feature's GlobalID, when it has one.
    public var globalId: String?
    /// Applied, applied by an earlier attempt, failed, or unknown.
    public var status: EditOutcome.Status
    /// Why the edit failed: the service's ArcGIS code and description, or for a whole batch that failed (rolled back,
    /// no response) the batch's error.
    public var error: EditError?

    /// A result.
    package init(tableId: Int, kind: PendingEdit.Kind, objectId: Int64?, globalId: String?, status: EditOutcome.Status, error: EditError? = nil) {
        self.tableId = tableId
        self.kind = kind
        self.objectId = objectId
        self.globalId = globalId
        self.status = status
        self.error = error
    }

    /// Whether the edit is in the service now.
    public var isApplied: Bool { status == .applied || status == .appliedByEarlierAttempt }
}

extension EditError {
    /// The error every edit of a batch gets when the whole request failed: the ArcGIS code when the service sent
    /// one (400 for a rolled-back batch), else the HTTP status, else 0; the description says what failed.
    init(batchFailure error: FeatureServiceError) {
        let code = error.arcgisError?.code ?? error.httpStatus ?? 0
        self.init(code: code, description: error.description)
    }
}
