import FeatureModel
import GEOSSupport
import GRDB

extension SpatialFilter {
    /// The SQL function that holds the exact test, registered on the reading connection for one query.
    static let functionName = "featureload_spatial"

    /// Whether rows need the exact test of ``SpatialPredicate`` beyond SQL: always but for a point layer filtered
    /// by an envelope it intersects, which the coordinate columns answer exactly.
    func needsPredicate(_ layer: LayerSchema) -> Bool {
        !(layer.geometry == .point && isEnvelope && (relation == .intersects || relation == .envelopeIntersects))
    }

    /// The SQL condition: the candidates by box (the coordinate columns of a point layer, ``ShapeIndex`` otherwise),
    /// then, where needed, the exact test.
    func condition(_ layer: LayerSchema) -> SQLFragment {
        let box: [SQLValue] = [.real(bounds.xmin), .real(bounds.xmax), .real(bounds.ymin), .real(bounds.ymax)]
        var condition: SQLFragment
        if layer.geometry == .point {
            condition = SQLFragment("(\(LayerSchema.xColumn) BETWEEN ? AND ? AND \(LayerSchema.yColumn) BETWEEN ? AND ?)", box)
        } else {
            // A feature the filter lies within has a box around the filter's; any other relation needs boxes that meet.
            let candidates =
                relation == .within
                ? SQLFragment("xmin <= ? AND xmax >= ? AND ymin <= ? AND ymax >= ?", [box[0], box[1], box[2], box[3]])
                : SQLFragment("xmin <= ? AND xmax >= ? AND ymin <= ? AND ymax >= ?", [box[1], box[0], box[3], box[2]])
            condition = SQLFragment(
                "\(layer.column(layer.objectIdField)) IN (SELECT id FROM \(ShapeIndex.table(layer)) WHERE \(candidates.sql))", candidates.bindings)
        }
        guard needsPredicate(layer) else { return condition }
        let arguments = layer.geometry == .point ? "\(LayerSchema.xColumn), \(LayerSchema.yColumn)" : LayerSchema.jsonColumn
        condition.sql = "(\(condition.sql) AND \(Self.functionName)(\(arguments)))"
        return condition
    }
}

/// The exact test of a ``SpatialFilter`` for one query, as the SQL function ``SpatialFilter/functionName``: GEOS'
/// prepared predicate of the filter against each candidate row's geometry (its x and y, or its stored JSON).
///
/// Isolation: made, registered and called on the one connection that runs the query, which SQLite calls on the
/// thread stepping the statement; its GEOS context is used by nothing else. A stored geometry GEOS cannot read
/// matches nothing, as the reader answers no geometry for it, so one bad row never fails a query.
final class SpatialPredicate: @unchecked Sendable {
    private let filter: SpatialFilter
    private let context: GEOSContext
    private let prepared: PreparedGEOSGeometry

    /// - Throws: ``GEOSError`` when GEOS cannot read the filter (``SpatialFilter/parse(_:storage:)`` checked it).
    init(_ filter: SpatialFilter) throws(GEOSError) {
        self.filter = filter
        context = try GEOSContext()
        prepared = try context.geometry(filter.geometry).prepared()
    }

    /// Runs `body` with the predicate registered on `db`.
    static func registered<T>(_ filter: SpatialFilter?, layer: LayerSchema, on db: Database, _ body: () throws -> T) throws -> T {
        guard let filter, filter.needsPredicate(layer) else { return try body() }
        let predicate = try SpatialPredicate(filter)
        let function = DatabaseFunction(SpatialFilter.functionName, pure: true) { values in predicate.matches(values) }
        db.add(function: function)
        defer { db.remove(function: function) }
        return try body()
    }

    /// Whether the row whose geometry columns are `values` meets the filter.
    func matches(_ values: [DatabaseValue]) -> Bool {
        let geometry: Geometry
        if values.count == 2 {
            guard let x = Double.fromDatabaseValue(values[0]), let y = Double.fromDatabaseValue(values[1]) else { return false }
            geometry = .point(x: x, y: y)
        } else {
            guard let text = values.first.flatMap(String.fromDatabaseValue), let decoded = try? WireJSON.decode(Geometry.self, from: text) else {
                return false
            }
            geometry = decoded
        }
        return matches(geometry)
    }

    func matches(_ geometry: Geometry) -> Bool {
        guard let bounds = ShapeBounds(geometry) else { return false }
        switch filter.relation {
        case .envelopeIntersects: return bounds.intersects(filter.bounds)
        case .intersects:
            guard bounds.intersects(filter.bounds) else { return false }
            // Every vertex inside an envelope filter: the feature meets it.
            if filter.isEnvelope && filter.bounds.contains(bounds) { return true }
        case .contains:
            guard filter.bounds.contains(bounds) else { return false }
        case .within: break
        }
        guard let feature = try? context.geometry(geometry) else { return false }
        switch filter.relation {
        case .intersects, .envelopeIntersects: return prepared.intersects(feature)
        case .contains: return prepared.contains(feature)
        case .within: return prepared.within(feature)
        }
    }
}
