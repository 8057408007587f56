/// The contingent values of a layer (`…/<id>/contingentValues`) or of a whole service
/// (`…/FeatureServer/queryContingentValues`).
///
/// ```json
/// {"typeCodes":["Unknown","Any","Null","Code","Range"],
///  "stringDicts":[{"domain":"NestStatus","entries":["Active","Inactive"]}],
///  "contingentValuesDefinition":{"fieldGroups":[{"name":"status_protection","restrictive":true,
///    "fields":["status","protection"],"domains":{"status":"NestStatus","protection":"Protection"},
///    "contingentValues":[{"id":1,"types":[3,3],"values":[0,2]}]}]}}
/// ```
/// `types[i]` indexes ``typeCodes`` for the i-th field of the group; `values` is read left to right: one value per
/// Code, two (min, max) per Range, none for Any or Null. A string code is written as its index into the domain's
/// `stringDicts` entries; a numeric code as itself. A layer answer carries `fieldGroups`; a service answer carries
/// `layers`, one entry per layer with contingent values.
public struct ContingentValuesResponse: Sendable, Hashable, Codable {
    /// The type codes in index order: `Unknown, Any, Null, Code, Range`.
    public static let standardTypeCodes = ["Unknown", "Any", "Null", "Code", "Range"]

    /// The strings of one string-coded domain, indexed by contingencies.
    public struct StringDictionary: Sendable, Hashable, Codable {
        public var domain: String
        public var entries: [String]

        public init(domain: String, entries: [String]) {
            self.domain = domain
            self.entries = entries
        }
    }

    /// One valid combination of a field group's values.
    public struct Contingency: Sendable, Hashable, Codable {
        public var id: Int
        public var types: [Int]
        public var values: [JSONValue]

        public init(id: Int, types: [Int], values: [JSONValue]) {
            self.id = id
            self.types = types
            self.values = values
        }
    }

    /// A field group: its fields (in contingency order), their domains, and every valid combination.
    public struct FieldGroup: Sendable, Hashable, Codable {
        public var name: String
        public var restrictive: Bool
        public var fields: [String]?
        public var domains: [String: String]?
        public var contingentValues: [Contingency]?

        public init(name: String, restrictive: Bool, fields: [String], domains: [String: String], contingentValues: [Contingency]) {
            self.name = name
            self.restrictive = restrictive
            self.fields = fields
            self.domains = domains
            self.contingentValues = contingentValues
        }
    }

    /// The field groups of one layer in a service-level answer.
    public struct LayerGroups: Sendable, Hashable, Codable {
        public var layerID: Int
        public var fieldGroups: [FieldGroup]

        public init(layerID: Int, fieldGroups: [FieldGroup]) {
            self.layerID = layerID
            self.fieldGroups = fieldGroups
        }
    }

    /// The `contingentValuesDefinition` member.
    public struct Definition: Sendable, Hashable, Codable {
        public var fieldGroups: [FieldGroup]?
        public var layers: [LayerGroups]?

        public init(fieldGroups: [FieldGroup]? = nil, layers: [LayerGroups]? = nil) {
            self.fieldGroups = fieldGroups
            self.layers = layers
        }
    }

    public var typeCodes: [String]
    public var stringDicts: [StringDictionary]
    public var contingentValuesDefinition: Definition

    public init(typeCodes: [String] = Self.standardTypeCodes, stringDicts: [StringDictionary], contingentValuesDefinition: Definition) {
        self.typeCodes = typeCodes
        self.stringDicts = stringDicts
        self.contingentValuesDefinition = contingentValuesDefinition
    }
}
