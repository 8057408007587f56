import FeatureModel

/// The `layerDefs` of a service-level query (`…/FeatureServer/query`): which layers to query, each with its own
/// `where` and optionally its own `outFields`. Pure.
///
/// Accepted forms, as documented for ArcGIS Server:
/// - a JSON object of layer id → where clause: `{"0":"POP > 1000","1":"1=1"}`;
/// - a JSON array of definitions: `[{"layerId":0,"where":"OBJECTID<100","outFields":"*"}]` (`outfields` in any case;
///   a missing `where` means all rows);
/// - the simple syntax `0:POP > 1000;1:AREA > 5` (split at `;`, then at the first `:`).
///
/// Layers are answered in the order given; a layer named twice is an error.
struct LayerDefinitions: Sendable, Hashable {
    /// One layer's part of the query.
    struct Definition: Sendable, Hashable {
        var layerId: Int
        /// The where clause; nil means all rows (`1=1`).
        var whereClause: String?
        /// The layer's `outFields`; nil means the request's `outFields`, else `*`.
        var outFields: String?
    }

    var definitions: [Definition]

    /// Reads `layerDefs`.
    /// - Throws: ``ServiceError`` (400 naming `layerDefs`) for text that is none of the three forms, a layer id that is
    ///   not a non-negative integer, a definition that is not an object or a string, or a layer named twice.
    static func parse(_ text: String) throws(ServiceError) -> LayerDefinitions {
        let trimmed = text.trimmed
        var definitions: [Definition] = []
        if trimmed.hasPrefix("{") || trimmed.hasPrefix("[") {
            let value: JSONValue
            do {
                value = try JSONReader.parse(trimmed)
            } catch {
                throw ServiceError.invalidParameter("layerDefs", reason: "not valid JSON: \(error)")
            }
            switch value {
            case .object(let members):
                for (key, clause) in members.sorted(by: { (Int($0.key) ?? .max, $0.key) < (Int($1.key) ?? .max, $1.key) }) {
                    guard case .string(let whereClause) = clause else {
                        throw ServiceError.invalidParameter("layerDefs", reason: "the definition of layer '\(key)' must be a where clause string")
                    }
                    definitions.append(Definition(layerId: try layerId(key), whereClause: whereClause, outFields: nil))
                }
            case .array(let items):
                for item in items {
                    guard case .object(let members) = item else {
                        throw ServiceError.invalidParameter("layerDefs", reason: "each array entry must be an object with layerId")
                    }
                    let lowered = Dictionary(members.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
                    let id: Int
                    switch lowered["layerid"] {
                    case .int(let value)?: id = try layerId(String(value))
                    case .string(let value)?: id = try layerId(value)
                    default: throw ServiceError.invalidParameter("layerDefs", reason: "each array entry needs an integer layerId")
                    }
                    definitions.append(
                        Definition(
                            layerId: id,
                            whereClause: try string(lowered["where"], "where"),
                            outFields: try string(lowered["outfields"], "outFields")
                        )
                    )
                }
            default:
                throw ServiceError.invalidParameter("layerDefs", reason: "expected a JSON object or array")
            }
        } else {
            for part in trimmed.split(separator: ";") where !part.allSatisfy(\.isWhitespace) {
                guard let colon = part.firstIndex(of: ":") else {
                    throw ServiceError.invalidParameter("layerDefs", reason: "'\(String(part).trimmed)' is not '<layerId>:<where clause>'")
                }
                let clause = String(part[part.index(after: colon)...]).trimmed
                definitions.append(
                    Definition(layerId: try layerId(String(part[..<colon])), whereClause: clause.isEmpty ? nil : clause, outFields: nil)
                )
            }
        }
        var seen = Set<Int>()
        for definition in definitions where !seen.insert(definition.layerId).inserted {
            throw ServiceError.invalidParameter("layerDefs", reason: "layer \(definition.layerId) is named twice")
        }
        return LayerDefinitions(definitions: definitions)
    }

    /// Every layer and table of a service, all rows: the query without `layerDefs`.
    static func all(layerIds: [Int]) -> LayerDefinitions {
        LayerDefinitions(definitions: layerIds.map { Definition(layerId: $0, whereClause: nil, outFields: nil) })
    }

    private static func layerId(_ text: String) throws(ServiceError) -> Int {
        guard let id = Int(text.trimmed), id >= 0 else {
            throw ServiceError.invalidParameter("layerDefs", reason: "'\(text.trimmed)' is not a layer id")
        }
        return id
    }

    private static func string(_ value: JSONValue?, _ name: String) throws(ServiceError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text.trimmed.isEmpty ? nil : text
        default: throw ServiceError.invalidParameter("layerDefs", reason: "'\(name)' must be a string")
        }
    }
}
