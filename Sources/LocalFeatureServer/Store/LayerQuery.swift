import FeatureModel

/// A checked layer query, ready for the store: compiled filter, chosen fields, order and page.
struct LayerQuery: Sendable, Hashable {
    /// What the query answers with.
    enum Output: Sendable, Hashable {
        /// Features, `offset` rows skipped, at most `limit` rows (already capped at maxRecordCount).
        case features(offset: Int, limit: Int)
        /// `{"count": n}`; paging is ignored.
        case count
        /// `{"objectIds": […]}`; never capped.
        case objectIds
    }

    /// One `orderByFields` term.
    struct OrderTerm: Sendable, Hashable {
        var field: Int
        var descending: Bool
    }

    /// The compiled `where` clause.
    var filter: SQLFragment
    /// `objectIds`, ANDed with the filter.
    var objectIds: [Int64]?
    /// Indexes into ``LayerSchema/fields`` of the fields to return, in order.
    var outFields: [Int]
    var returnGeometry: Bool
    /// Requested order; the object ID always breaks ties.
    var orderBy: [OrderTerm]
    var output: Output
}

/// The store's answer to a ``LayerQuery``.
enum QueryAnswer: Sendable, Hashable {
    case features([Feature], exceededTransferLimit: Bool)
    case count(Int)
    case objectIds([Int64])
}
