package import FeatureModel

/// Where a record sits in its input file, for error messages and the rejects file.
package struct InputPosition: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The record's index in the file, from 0 (the n-th feature, edit, row or line record).
    package var index: Int
    /// The 1-based line the record starts on, when the format has lines that mean something (CSV, NDJSON, JSON).
    package var line: Int?
    /// The table a GeoPackage record came from.
    package var table: String?

    package init(index: Int, line: Int? = nil, table: String? = nil) {
        self.index = index
        self.line = line
        self.table = table
    }

    package var description: String {
        var parts: [String] = []
        if let table { parts.append("table \(table)") }
        if let line { parts.append("line \(line)") }
        parts.append("record \(index + 1)")
        return parts.joined(separator: ", ")
    }
}

/// One edit read from an input file: what to do, to which layer, with which feature, and where it came from.
package struct InputEdit: Sendable, Hashable {
    package enum Kind: String, Sendable, Hashable, Codable {
        case add, update, delete

        /// The order in which ArcGIS applies the edits of one applyEdits request: adds, then updates, then deletes.
        var order: Int {
            switch self {
            case .add: 0
            case .update: 1
            case .delete: 2
            }
        }
    }

    package var kind: Kind
    /// For adds and updates, the feature (attributes and geometry, Esri JSON shape). For deletes, the attributes
    /// hold the key: the object-ID field or the GlobalID field.
    package var feature: Feature
    /// The layer the edit is for, when the input names one (service-level Esri JSON edits); nil means the layer
    /// given on the command line.
    package var layer: Int?
    package var position: InputPosition
    /// The record exactly as it stood in the input (a GeoJSON or Esri JSON feature's text, a CSV line), so a
    /// rejected edit is written back in the input's own format.
    package var source: String

    package init(kind: Kind, feature: Feature, layer: Int? = nil, position: InputPosition, source: String) {
        self.kind = kind
        self.feature = feature
        self.layer = layer
        self.position = position
        self.source = source
    }

    /// This record refused for `reason`, with its position, text, kind and layer (for the rejects file).
    package func problem(_ reason: String) -> InputProblem {
        InputProblem(position: position, reason: reason, source: source, kind: kind, layer: layer)
    }
}

/// A record that could not be read, with its position and why.
package struct InputProblem: Error, Sendable, Hashable, CustomStringConvertible {
    package var position: InputPosition
    package var reason: String
    /// The record's text, when it could be cut out of the file.
    package var source: String?
    /// What the record was, when it could be read: its kind and the layer it names (service-level Esri JSON), so a
    /// rejects file puts it back where it stood.
    package var kind: InputEdit.Kind?
    package var layer: Int?

    package init(position: InputPosition, reason: String, source: String? = nil, kind: InputEdit.Kind? = nil, layer: Int? = nil) {
        self.position = position
        self.reason = reason
        self.source = source
        self.kind = kind
        self.layer = layer
    }

    package var description: String { "\(position): \(reason)" }
}
