import FeatureModel

/// A checked layer query, ready for the store: compiled filters, chosen fields, order, page and output form.
///
/// Every output form reads the same rows: those matching ``filter`` AND ``objectIds`` AND ``spatial``. So a
/// count, the ids, the extent and the statistics always agree with the features a client pages through.
struct LayerQuery: Sendable, Hashable {
    /// What the query answers with.
    enum Output: Sendable, Hashable {
        /// Features, `offset` rows skipped, at most `limit` rows (already capped by ``RecordLimits``); none at all
        /// when more match and `dropExceeded` (`returnExceededLimitFeatures=false` on a tile query).
        case features(offset: Int, limit: Int, dropExceeded: Bool = false)
        /// `{"count": n}`; paging is ignored.
        case count
        /// `{"objectIds": […]}`; never capped.
        case objectIds
        /// `{"extent": …}`, with `count` too when `withCount` (`returnExtentOnly` with `returnCountOnly`).
        case extent(withCount: Bool)
        /// Distinct combinations of ``LayerQuery/outFields`` (`returnDistinctValues`), paged like features.
        case distinct(offset: Int, limit: Int)
        /// The number of distinct combinations of ``LayerQuery/outFields`` (`returnDistinctValues` with `returnCountOnly`).
        case distinctCount
        /// One row per group of `outStatistics` (one row without `groupByFieldsForStatistics`); paging is ignored.
        case statistics(StatisticsQuery)
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
    /// The `geometry` filter, ANDed with the filter.
    var spatial: SpatialFilter?
    /// Indexes into ``LayerSchema/fields`` of the fields to return, in order.
    var outFields: [Int]
    var returnGeometry: Bool
    /// Requested order; the object ID always breaks ties (except for distinct values, which have no object ID).
    var orderBy: [OrderTerm]
    var output: Output
    /// The spatial reference and precision of answered geometries and extents (`outSR`, `geometryPrecision`).
    var geometryOutput = GeometryOutput()
}

/// The store's answer to a ``LayerQuery``.
enum QueryAnswer: Sendable, Hashable {
    case features([Feature], exceededTransferLimit: Bool)
    case count(Int)
    case objectIds([Int64])
    /// The bounding box of the matching geometries in the output spatial reference (nil when none has one), and
    /// the count when asked for.
    case extent(Extent?, count: Int?)
    /// Statistics rows: attributes only.
    case statistics([Feature])
}
