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
package struct ContingentValuesResponse: Sendable, Hashable, Codable {
    /// The type codes in index order: `Unknown, Any, Null, Code, Range`.
    package static let standardTypeCodes = ["Unknown", "Any", "Null", "Code", "Range"]

    /// The strings of one string-coded domain, indexed by contingencies.
    package struct StringDictionary: Sendable, Hashable, Codable {
        package var domain: String
        package var entries: [String]

        package init(domain: String, entries: [String]) {
            self.domain = domain
            self.entries = entries
        }
    }

    /// One valid combination of a field group's values.
    package struct Contingency: Sendable, Hashable, Codable {
        package var id: Int
        package var types: [Int]
        package var values: [JSONValue]

        package init(id: Int, types: [Int], values: [JSONValue]) {
            self.id = id
            self.types = types
            self.values = values
        }
    }

    /// A field group: its fields (in contingency order), their domains, and every valid combination.
    package struct FieldGroup: Sendable, Hashable, Codable {
        package var name: String
        package var restrictive: Bool
        package var fields: [String]?
        package var domains: [String: String]?
        package var contingentValues: [Contingency]?

        package init(name: String, restrictive: Bool, fields: [String], domains: [String: String], contingentValues: [Contingency]) {
            self.name = name
            self.restrictive = restrictive
            self.fields = fields
            self.domains = domains
            self.contingentValues = contingentValues
        }
    }

    /// The field groups of one layer in a service-level answer.
    package struct LayerGroups: Sendable, Hashable, Codable {
        package var layerID: Int
        package var fieldGroups: [FieldGroup]

        package init(layerID: Int, fieldGroups: [FieldGroup]) {
            self.layerID = layerID
            self.fieldGroups = fieldGroups
        }
    }

    /// The `contingentValuesDefinition` member.
    package struct Definition: Sendable, Hashable, Codable {
        package var fieldGroups: [FieldGroup]?
        package var layers: [LayerGroups]?

        package init(fieldGroups: [FieldGroup]? = nil, layers: [LayerGroups]? = nil) {
            self.fieldGroups = fieldGroups
            self.layers = layers
        }
    }

    package var typeCodes: [String]
    package var stringDicts: [StringDictionary]
    package var contingentValuesDefinition: Definition

    package init(typeCodes: [String] = Self.standardTypeCodes, stringDicts: [StringDictionary], contingentValuesDefinition: Definition) {
        self.typeCodes = typeCodes
        self.stringDicts = stringDicts
        self.contingentValuesDefinition = contingentValuesDefinition
    }
}
