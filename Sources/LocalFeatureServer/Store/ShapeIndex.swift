import FeatureModel
import GRDB

/// The smallest WGS 84 box around a geometry's vertices.
struct ShapeBounds: Sendable, Hashable {
    var xmin: Double
    var ymin: Double
    var xmax: Double
    var ymax: Double

    /// The bounds of `geometry`'s x and y; nil when it has no vertex (an empty polygon, say).
    init?(_ geometry: Geometry) {
        var bounds: ShapeBounds?
        _ = geometry.allCoordinates { x, y in
            ShapeBounds.include(x, y, in: &bounds)
            return true
        }
        guard let bounds else { return nil }
        self = bounds
    }

    /// Grows `bounds` (nil: none yet) to hold (x, y).
    static func include(_ x: Double, _ y: Double, in bounds: inout ShapeBounds?) {
        guard var known = bounds else {
            bounds = ShapeBounds(xmin: x, ymin: y, xmax: x, ymax: y)
            return
        }
        known.xmin = min(known.xmin, x)
        known.ymin = min(known.ymin, y)
        known.xmax = max(known.xmax, x)
        known.ymax = max(known.ymax, y)
        bounds = known
    }

    init(xmin: Double, ymin: Double, xmax: Double, ymax: Double) {
        self.xmin = xmin
        self.ymin = ymin
        self.xmax = xmax
        self.ymax = ymax
    }

    /// Whether the two boxes share a point (edges included).
    func intersects(_ other: ShapeBounds) -> Bool {
        xmin <= other.xmax && other.xmin <= xmax && ymin <= other.ymax && other.ymin <= ymax
    }

    /// Whether `other` lies inside this box (edges included).
    func contains(_ other: ShapeBounds) -> Bool {
        xmin <= other.xmin && other.xmax <= xmax && ymin <= other.ymin && other.ymax <= ymax
    }
}

/// The spatial index of a layer whose geometries are stored as JSON (multipoints, polylines, polygons): an SQLite
/// R*Tree `layer_<id>_shapes(id, xmin, xmax, ymin, ymax)` holding each row's ``ShapeBounds`` under its object ID.
///
/// The edit writer puts a row's bounds in as it writes the row, in the same transaction (it has them from checking
/// the geometry, where a trigger would have to take the JSON apart again, at about 6 µs a vertex); a trigger takes
/// them out when the row is deleted, however it is deleted (a delete edit, a composite relationship's cascade). A
/// database made before the index existed gets it, filled from the stored geometries, when it is opened.
///
/// The R*Tree keeps 32-bit floats rounded outwards, so a lookup finds every row whose box meets the query's box and
/// perhaps a few whose box only comes within a float's rounding of it; the exact test follows.
enum ShapeIndex {
    /// The quoted R*Tree table of `layer`.
    static func table(_ layer: LayerSchema) -> String { SQLFragment.quoted("layer_\(layer.info.id)_shapes") }

    /// Whether `layer` has an index (JSON-stored geometries).
    static func isIndexed(_ layer: LayerSchema) -> Bool { layer.geometry == .json }

    /// The statements that create the index and its delete trigger (idempotent). A point layer's coordinate
    /// columns get a B-tree index instead (x, then y): a map tile's box is a range of x with y checked in the index,
    /// a fifth of an R*Tree's cost per insert and as fast for a tile (both far from a scan of every row). Opening a
    /// file made before it builds it.
    static func createStatements(_ layer: LayerSchema) -> [String] {
        if layer.geometry == .point {
            let name = SQLFragment.quoted("layer_\(layer.info.id)_shape_xy")
            return ["CREATE INDEX IF NOT EXISTS \(name) ON \(layer.table)(\(LayerSchema.xColumn), \(LayerSchema.yColumn))"]
        }
        guard isIndexed(layer) else { return [] }
        let trigger = SQLFragment.quoted("layer_\(layer.info.id)_shapes_delete")
        return [
            "CREATE VIRTUAL TABLE IF NOT EXISTS \(table(layer)) USING rtree(id, xmin, xmax, ymin, ymax)",
            """
            CREATE TRIGGER IF NOT EXISTS \(trigger) AFTER DELETE ON \(layer.table) BEGIN \
            DELETE FROM \(table(layer)) WHERE id = old.\(layer.column(layer.objectIdField)); END
            """,
        ]
    }

    /// Adds the bounds of a row just inserted.
    static func insert(_ bounds: ShapeBounds, objectId: Int64, layer: LayerSchema, db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO \(table(layer)) (id, xmin, xmax, ymin, ymax) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [objectId, bounds.xmin, bounds.xmax, bounds.ymin, bounds.ymax])
    }

    /// Sets (or, with nil, removes) the bounds of a row whose geometry changed.
    static func replace(_ bounds: ShapeBounds?, objectId: Int64, layer: LayerSchema, db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM \(table(layer)) WHERE id = ?").execute(arguments: [objectId])
        if let bounds { try insert(bounds, objectId: objectId, layer: layer, db: db) }
    }

    /// Creates the index of a database made before it existed and fills it from the stored geometries.
    static func prepare(_ layer: LayerSchema, db: Database) throws {
        guard isIndexed(layer) else {
            // A point layer's coordinate index fills itself as SQLite creates it.
            for statement in createStatements(layer) { try db.execute(sql: statement) }
            return
        }
        let name = "layer_\(layer.info.id)_shapes"
        let exists = try Bool.fetchOne(db, sql: "SELECT COUNT(*) > 0 FROM sqlite_master WHERE name = ?", arguments: [name]) ?? false
        for statement in createStatements(layer) { try db.execute(sql: statement) }
        guard !exists else { return }
        let rows = try Row.fetchCursor(
            db,
            sql:
                "SELECT \(layer.column(layer.objectIdField)), \(LayerSchema.jsonColumn) FROM \(layer.table) WHERE \(LayerSchema.jsonColumn) IS NOT NULL"
        )
        while let row = try rows.next() {
            guard let text = row[1] as String?, let geometry = try? WireJSON.decode(Geometry.self, from: text) else { continue }
            if let bounds = ShapeBounds(geometry) { try insert(bounds, objectId: row[0], layer: layer, db: db) }
        }
    }
}
