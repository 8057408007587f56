import FeatureModel
import GRDB

extension QueryReader {
    /// `outStatistics` over the rows matching `condition`:
    /// ```
    /// SELECT <group fields>, <aggregate> AS "<name>", … FROM layer_<id> WHERE <condition>
    ///  [GROUP BY <group fields>] ORDER BY <orderByFields or group fields>
    /// ```
    static func statistics(_ statistics: StatisticsQuery, layer: LayerSchema, condition: SQLFragment, db: Database) throws -> QueryAnswer {
        let groupColumns = statistics.groupBy.map { layer.column($0) }
        let columns = groupColumns + statistics.statistics.map { "\($0.sql(layer: layer)) AS \(SQLFragment.quoted($0.name))" }
        var sql = "SELECT \(columns.joined(separator: ", ")) FROM \(layer.table) WHERE \(condition.sql)"
        if !groupColumns.isEmpty { sql += " GROUP BY \(groupColumns.joined(separator: ", "))" }
        var order = statistics.orderBy.map { "\(SQLFragment.quoted($0.name))\($0.descending ? " DESC" : "")" }
        for (index, column) in zip(statistics.groupBy, groupColumns)
        where !statistics.orderBy.contains(where: { $0.name == layer.fields[index].name }) {
            order.append(column)
        }
        if !order.isEmpty { sql += " ORDER BY \(order.joined(separator: ", "))" }
        let fields = statistics.outputFields(layer: layer)
        let rows = try Row.fetchAll(db.cachedStatement(sql: sql), arguments: StatementArguments(condition.bindings))
        return .statistics(rows.map { Feature(attributes: attributes($0, fields: fields)) })
    }

    /// The bounding box of the geometries matching `condition`, in the output spatial reference.
    ///
    /// Point layers ask SQLite for the minimum and maximum coordinates; other layers read each stored geometry.
    /// Projecting the two corners is exact, as Web Mercator keeps the axes apart and is monotonic along each.
    static func extent(_ query: LayerQuery, layer: LayerSchema, condition: SQLFragment, withCount: Bool, db: Database) throws -> QueryAnswer {
        var count: Int?
        var bounds: (xmin: Double, ymin: Double, xmax: Double, ymax: Double)?
        switch layer.geometry {
        case .none:
            if withCount {
                let sql = "SELECT COUNT(*) FROM \(layer.table) WHERE \(condition.sql)"
                count = try Int.fetchOne(db.cachedStatement(sql: sql), arguments: StatementArguments(condition.bindings)) ?? 0
            }
        case .point:
            let (x, y) = (LayerSchema.xColumn, LayerSchema.yColumn)
            // Rows outside WGS 84 (see `QueryReader.readGeometry`) count but do not stretch the extent.
            let inside = "\(x) BETWEEN -180 AND 180 AND \(y) BETWEEN -90 AND 90"
            let sql = """
                SELECT MIN(CASE WHEN \(inside) THEN \(x) END), MIN(CASE WHEN \(inside) THEN \(y) END), \
                MAX(CASE WHEN \(inside) THEN \(x) END), MAX(CASE WHEN \(inside) THEN \(y) END), COUNT(*) \
                FROM \(layer.table) WHERE \(condition.sql)
                """
            if let row = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: StatementArguments(condition.bindings)) {
                if let xmin = row[0] as Double?, let ymin = row[1] as Double?, let xmax = row[2] as Double?, let ymax = row[3] as Double? {
                    bounds = (xmin, ymin, xmax, ymax)
                }
                if withCount { count = row[4] as Int? ?? 0 }
            }
        case .json:
            let sql = "SELECT \(LayerSchema.jsonColumn) FROM \(layer.table) WHERE \(condition.sql)"
            let cursor = try String?.fetchCursor(db.cachedStatement(sql: sql), arguments: StatementArguments(condition.bindings))
            var rows = 0
            while let text = try cursor.next() {
                rows += 1
                guard let text, let geometry = try? WireJSON.decode(Geometry.self, from: text) else { continue }
                for (x, y) in coordinates(of: geometry) {
                    guard let current = bounds else {
                        bounds = (x, y, x, y)
                        continue
                    }
                    bounds = (min(current.xmin, x), min(current.ymin, y), max(current.xmax, x), max(current.ymax, y))
                }
            }
            if withCount { count = rows }
        }
        guard let bounds else { return .extent(nil, count: count) }
        let output = query.geometryOutput
        let (xmin, ymin) = output.coordinate(bounds.xmin, bounds.ymin)
        let (xmax, ymax) = output.coordinate(bounds.xmax, bounds.ymax)
        let extent = Extent(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax, spatialReference: output.spatialReference.wire)
        return .extent(extent, count: count)
    }

    private static func coordinates(of geometry: Geometry) -> [(Double, Double)] {
        func pairs(_ points: [[Double]]) -> [(Double, Double)] {
            points.compactMap { $0.count >= 2 && GeometryCoercion.isGeographic(x: $0[0], y: $0[1]) ? ($0[0], $0[1]) : nil }
        }
        switch geometry {
        case .point(let x, let y, _, _): return GeometryCoercion.isGeographic(x: x, y: y) ? [(x, y)] : []
        case .multipoint(let points, _): return pairs(points)
        case .polyline(let paths, _): return paths.flatMap(pairs)
        case .polygon(let rings, _): return rings.flatMap(pairs)
        case .envelope(let xmin, let ymin, let xmax, let ymax, _): return pairs([[xmin, ymin], [xmax, ymax]])
        }
    }
}
