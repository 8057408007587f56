import FeatureModel
import Foundation

/// How input files are read: which attribute names the edit kind, and the options of each format.
///
/// The CLI fills it from `featureload apply`'s flags.
package struct InputOptions: Sendable, Hashable {
    /// The attribute (GeoJSON property, CSV column, GeoPackage column, Esri feature-set attribute) whose value
    /// (`add`, `update` or `delete`, any case; empty or null means add) gives each record's kind. The attribute
    /// is removed from the feature. Nil (the default): every record of those formats is an add.
    package var kindField: String?
    /// CSV columns, geometry and mapping.
    package var csv: CSVOptions
    /// GeoPackage table and paging.
    package var geoPackage: GeoPackageOptions
    /// The most bytes one record may have (a JSON feature or edit, a line of newline-delimited JSON, a CSV row);
    /// default ``defaultMaxRecordSize``. A longer record is read past, never held, and reported as a problem at its
    /// position, so a file with a runaway value is read in bounded memory.
    package var maxRecordSize: Int
    /// The default record size limit: 64 MiB, far above any real feature.
    package static let defaultMaxRecordSize = 64 << 20
    /// Bytes read from a file at a time (64 KiB); tests make it tiny to cross chunk boundaries.
    package var chunkSize: Int

    /// Options with the given values.
    /// - Parameters:
    ///   - kindField: the attribute giving each record's kind; default nil (all adds).
    ///   - csv: CSV options; default: no mapping, no geometry.
    ///   - geoPackage: GeoPackage options; default: the only feature table.
    ///   - maxRecordSize: the most bytes one record may have (at least 1); default 64 MiB.
    package init(
        kindField: String? = nil, csv: CSVOptions = CSVOptions(), geoPackage: GeoPackageOptions = GeoPackageOptions(),
        maxRecordSize: Int = InputOptions.defaultMaxRecordSize
    ) {
        self.kindField = kindField
        self.csv = csv
        self.geoPackage = geoPackage
        self.maxRecordSize = max(1, maxRecordSize)
        self.chunkSize = ByteSource.defaultChunkSize
    }
}

/// The edit kind an attribute names (`InputOptions.kindField`).
enum EditKindField {
    /// The kind `value` names: add for a missing, null or empty value.
    /// - Throws: a reason naming the field and the value when it is not add, update or delete.
    static func kind(_ value: JSONValue?, field: String) throws(RecordError) -> InputEdit.Kind {
        switch value {
        case nil, .null?: return .add
        case .string(let text)?:
            let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
            if trimmed.isEmpty { return .add }
            if let kind = InputEdit.Kind(rawValue: trimmed) { return kind }
        default: break
        }
        throw RecordError("'\(field)' is \(value ?? .null); expected add, update or delete")
    }

    /// Removes the kind attribute (matched case-insensitively) from `attributes` and returns the kind it names.
    static func take(from attributes: inout [String: JSONValue], field: String?) throws(RecordError) -> InputEdit.Kind {
        guard let field else { return .add }
        let lowered = field.lowercased()
        guard let key = attributes.keys.first(where: { $0.lowercased() == lowered }) else { return .add }
        let value = attributes.removeValue(forKey: key)
        return try kind(value, field: field)
    }
}

/// Why one record cannot be read; the reader adds the record's position to make an ``InputProblem``.
struct RecordError: Error {
    var reason: String
    init(_ reason: String) { self.reason = reason }
    init(_ problem: GeometryProblem) { self.reason = problem.reason }
}
