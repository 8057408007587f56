import FeatureModel
import Foundation

/// Reads a CSV file (RFC 4180, header row required) row by row into features: each column an attribute named by
/// ``CSVOptions/mapping`` or the header, values kept as strings (``FieldCoercion`` types them) and empty cells
/// null; geometry from the x/y or WKT column, which are not attributes. Rows are adds unless
/// ``InputOptions/kindField`` names a column.
///
/// Positions carry the line each row starts on; `source` is the row's text, so rejects can be written back
/// under the same header (``header``). Memory: one chunk and one row. Blocks on file I/O.
package struct CSVReader: EditReader {
    private var parser: CSVRecordParser
    private let options: InputOptions
    private var index = 0
    private var finished = false
    private var columns: [Column] = []
    private var geometryColumns: (x: Int?, y: Int?, wkt: Int?) = (nil, nil, nil)
    /// The header row's text as it stood in the file; nil until the first call of ``next()``.
    package private(set) var header: String?

    /// The header row, which a rejects file in CSV starts with.
    package var rejectsHeader: String? { header }

    private struct Column {
        var name: String
        /// The attribute the column becomes; nil for geometry columns.
        var attribute: String?
    }

    /// A reader of the CSV file at `path`.
    /// - Throws: ``InputSetupError`` when the file cannot be opened.
    package init(path: String, options: InputOptions = InputOptions()) throws {
        parser = CSVRecordParser(source: try ByteSource(path: path, chunkSize: options.chunkSize), limit: options.maxRecordSize)
        self.options = options
    }

    /// A reader of CSV text in memory, read in chunks of `options.chunkSize` as a file would be.
    package init(bytes: [UInt8], options: InputOptions = InputOptions()) {
        parser = CSVRecordParser(source: ByteSource(bytes: bytes, chunkSize: options.chunkSize), limit: options.maxRecordSize)
        self.options = options
    }

    package mutating func next() -> Result<InputEdit, InputProblem>? {
        guard !finished else { return nil }
        do {
            if header == nil {
                guard let row = try parser.next() else {
                    return end(InputProblem(position: InputPosition(index: 0, line: 1), reason: "the file is empty; a header row is required"))
                }
                if let byteCount = row.tooLarge {
                    return end(RecordText.tooLarge(byteCount: byteCount, limit: options.maxRecordSize, at: InputPosition(index: 0, line: row.line)))
                }
                if let problem = readHeader(row) { return end(problem) }
            }
            guard let row = try parser.next() else {
                finished = true
                return nil
            }
            let position = InputPosition(index: index, line: row.line)
            index += 1
            if let byteCount = row.tooLarge { return .failure(RecordText.tooLarge(byteCount: byteCount, limit: options.maxRecordSize, at: position)) }
            return decode(row, position: position)
        } catch let error as CSVRecordParser.UnterminatedQuote {
            return end(
                InputProblem(
                    position: InputPosition(index: index, line: error.line), reason: "a quoted field opened on this line is never closed",
                    source: RecordText.string(error.text)))
        } catch {
            return end(InputProblem(position: InputPosition(index: index), reason: "cannot read the file: \(error)"))
        }
    }

    private mutating func end(_ problem: InputProblem) -> Result<InputEdit, InputProblem> {
        finished = true
        return .failure(problem)
    }

    private mutating func readHeader(_ row: CSVRecordParser.Record) -> InputProblem? {
        header = RecordText.string(row.text)
        let position = InputPosition(index: 0, line: row.line)
        let names = row.fields.map { $0.trimmingCharacters(in: .whitespaces) }
        var seen: Set<String> = []
        for name in names {
            if name.isEmpty { return InputProblem(position: position, reason: "the header has an empty column name") }
            if !seen.insert(name).inserted { return InputProblem(position: position, reason: "the header names column '\(name)' twice") }
        }
        let csv = options.csv
        func place(_ column: String?, _ role: String) -> (Int?, InputProblem?) {
            guard let column else { return (nil, nil) }
            guard let at = names.firstIndex(of: column) else {
                return (
                    nil,
                    InputProblem(
                        position: position, reason: "no \(role) column '\(column)' in the header; columns are \(names.joined(separator: ", "))")
                )
            }
            return (at, nil)
        }
        if (csv.x == nil) != (csv.y == nil) { return InputProblem(position: position, reason: "give both the x and the y column, or neither") }
        if csv.wkt != nil && csv.x != nil { return InputProblem(position: position, reason: "give either x/y columns or a WKT column, not both") }
        let (x, xProblem) = place(csv.x, "x")
        let (y, yProblem) = place(csv.y, "y")
        let (wkt, wktProblem) = place(csv.wkt, "WKT")
        if let problem = xProblem ?? yProblem ?? wktProblem { return problem }
        for column in csv.mapping.keys.sorted() where !names.contains(column) {
            return InputProblem(
                position: position, reason: "--map names column '\(column)', which is not in the header; columns are \(names.joined(separator: ", "))"
            )
        }
        geometryColumns = (x, y, wkt)
        let geometryIndexes = Set([x, y, wkt].compactMap { $0 })
        columns = names.enumerated().map { offset, name in
            Column(name: name, attribute: geometryIndexes.contains(offset) ? nil : (csv.mapping[name] ?? name))
        }
        return nil
    }

    private func decode(_ row: CSVRecordParser.Record, position: InputPosition) -> Result<InputEdit, InputProblem> {
        if let problem = RecordText.utf8Problem(row.text, position: position) { return .failure(problem) }
        let source = RecordText.string(row.text)
        func problem(_ reason: String) -> Result<InputEdit, InputProblem> {
            .failure(InputProblem(position: position, reason: reason, source: source))
        }
        guard row.fields.count == columns.count else {
            return problem("the row has \(row.fields.count) fields; the header has \(columns.count)")
        }
        var attributes: [String: JSONValue] = [:]
        for (column, value) in zip(columns, row.fields) {
            guard let attribute = column.attribute else { continue }
            attributes[attribute] = value.isEmpty ? .null : .string(value)
        }
        let kind: InputEdit.Kind
        do throws(RecordError) { kind = try EditKindField.take(from: &attributes, field: options.kindField) } catch { return problem(error.reason) }
        let reference = SpatialReference(wkid: options.csv.wkid)
        var geometry: Geometry?
        do {
            if let x = geometryColumns.x, let y = geometryColumns.y {
                geometry = try pointGeometry(x: row.fields[x], y: row.fields[y], reference: reference)
            } else if let wkt = geometryColumns.wkt {
                let text = row.fields[wkt].trimmingCharacters(in: .whitespaces)
                if !text.isEmpty {
                    let (simple, srid) = try WKTParser.parse(text)
                    geometry = try simple.esriGeometry(spatialReference: srid.map { SpatialReference(wkid: $0) } ?? reference)
                }
            }
        } catch {
            let column = geometryColumns.wkt.map { columns[$0].name } ?? ""
            return problem(column.isEmpty ? error.reason : "column '\(column)': \(error.reason)")
        }
        return .success(InputEdit(kind: kind, feature: Feature(attributes: attributes, geometry: geometry), position: position, source: source))
    }

    private func pointGeometry(x: String, y: String, reference: SpatialReference) throws(GeometryProblem) -> Geometry? {
        let xText = x.trimmingCharacters(in: .whitespaces)
        let yText = y.trimmingCharacters(in: .whitespaces)
        if xText.isEmpty && yText.isEmpty { return nil }
        let names = (x: columns[geometryColumns.x!].name, y: columns[geometryColumns.y!].name)
        guard let xValue = Double(xText), xValue.isFinite else { throw GeometryProblem("column '\(names.x)': '\(x)' is not a number") }
        guard let yValue = Double(yText), yValue.isFinite else { throw GeometryProblem("column '\(names.y)': '\(y)' is not a number") }
        return .point(x: xValue, y: yValue, spatialReference: reference)
    }
}
