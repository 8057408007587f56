import Foundation

/// How a CSV file becomes features: column renames, the geometry columns, and its coordinate system.
package struct CSVOptions: Sendable, Hashable {
    /// Column name → field name. Columns not mapped keep their own name.
    package var mapping: [String: String]
    /// The column holding x (longitude), with ``y``; its cells must be numbers.
    package var x: String?
    /// The column holding y (latitude), with ``x``.
    package var y: String?
    /// The column holding WKT geometry (`POINT (1 2)`, `POLYGON Z (…)`, `EMPTY`), instead of ``x``/``y``.
    package var wkt: String?
    /// The coordinate system of the coordinates; default 4326 (WGS 84).
    package var wkid: Int

    /// Options with the given values.
    /// - Parameters:
    ///   - mapping: column → field renames; default none.
    ///   - x: the x column; default none.
    ///   - y: the y column; default none.
    ///   - wkt: the WKT column; default none. With no geometry column the records have no geometry.
    ///   - wkid: the coordinates' well-known ID; default 4326.
    package init(mapping: [String: String] = [:], x: String? = nil, y: String? = nil, wkt: String? = nil, wkid: Int = 4326) {
        self.mapping = mapping
        self.x = x
        self.y = y
        self.wkt = wkt
        self.wkid = wkid
    }

    /// The mapping a `--map` value spells: `column=FIELD` pairs separated by commas (`name=NAME,st=STATE`).
    ///
    /// Spaces around names are ignored.
    /// - Throws: ``InputSetupError`` naming the pair at fault: no `=`, an empty side, a column mapped twice, or
    ///   two columns mapped to one field.
    package static func parseMapping(_ text: String) throws(InputSetupError) -> [String: String] {
        var mapping: [String: String] = [:]
        var columnOfField: [String: String] = [:]
        for (index, pair) in text.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let where_ = "--map pair \(index + 1) '\(pair)'"
            guard parts.count == 2 else { throw InputSetupError("\(where_) has no '='; write column=FIELD, pairs separated by commas") }
            let column = parts[0].trimmingCharacters(in: .whitespaces)
            let field = parts[1].trimmingCharacters(in: .whitespaces)
            guard !column.isEmpty else { throw InputSetupError("\(where_) names no column before '='") }
            guard !field.isEmpty else { throw InputSetupError("\(where_) names no field after '='") }
            guard mapping[column] == nil else { throw InputSetupError("\(where_): column '\(column)' is mapped twice") }
            if let other = columnOfField[field.lowercased()] {
                throw InputSetupError("\(where_): field '\(field)' is already the target of column '\(other)'")
            }
            mapping[column] = field
            columnOfField[field.lowercased()] = column
        }
        return mapping
    }
}
