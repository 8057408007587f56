import FeatureModel
import FeatureServiceClient
import Testing

/// Contingent values and domains on the bird-nest dataset's rules, without I/O.
@Suite struct ContingencyValidationTests {
    /// The bird-nest layer's `contingentValues` resource as the local service writes it (flat field groups; string
    /// codes as indexes into `stringDicts`).
    static let flatShape = #"""
        {"typeCodes":["Unknown","Any","Null","Code","Range"],
         "stringDicts":[{"domain":"NestSpecies","entries":["BAEA","OSPR","GBHE","PEFA"]},{"domain":"NestStatus","entries":["Active","Inactive","Unknown"]}],
         "contingentValuesDefinition":{"fieldGroups":[
          {"name":"status_protection","restrictive":true,"fields":["status","protection"],"domains":{"status":"NestStatus","protection":"Protection"},
           "contingentValues":[{"id":1,"types":[3,3],"values":[0,1]},{"id":2,"types":[3,3],"values":[0,2]},{"id":3,"types":[3,3],"values":[1,0]},
                               {"id":4,"types":[3,3],"values":[1,1]},{"id":5,"types":[3,2],"values":[1]},{"id":6,"types":[3,1],"values":[2]}]},
          {"name":"protection_buffer","restrictive":true,"fields":["protection","buffer_m"],"domains":{"protection":"Protection","buffer_m":"BufferSize"},
           "contingentValues":[{"id":1,"types":[3,2],"values":[0]},{"id":2,"types":[3,4],"values":[0,0,50]},{"id":3,"types":[3,4],"values":[1,100,300]},
                               {"id":4,"types":[3,4],"values":[2,300,1000]},{"id":5,"types":[2,2],"values":[]}]},
          {"name":"species_status","restrictive":false,"fields":["species","status"],"domains":{"species":"NestSpecies","status":"NestStatus"},
           "contingentValues":[{"id":1,"types":[3,3],"values":[0,0]},{"id":2,"types":[3,3],"values":[0,1]},{"id":3,"types":[3,1],"values":[1]},
                               {"id":4,"types":[3,1],"values":[2]},{"id":5,"types":[3,3],"values":[3,0]},{"id":6,"types":[3,3],"values":[3,2]}]}]}}
        """#

    /// The documented shape with `subTypes` (arcgis-rest.md §7).
    static let subtypeShape = #"""
        {"typeCodes":["Unknown","Any","Null","Code","Range"],
         "stringDicts":[{"domain":"drating","entries":["Excellent","Good","OK","HasIssues"]}],
         "contingentValuesDefinition":{"fieldGroups":[{"name":"make_rating","restrictive":true,"fields":["vmake","vrating"],
           "subTypes":[{"code":100,"name":"Airplane","domains":{"vmake":"dmakes","vrating":"drating"},
             "contingentValues":[{"id":1,"types":[3,3],"values":[3,1]},{"id":3,"types":[3,1],"values":[7]}]}]}]}}
        """#

    static func definition(_ text: String) throws -> ContingentValuesDefinition {
        try ContingentValuesDefinition(json: JSONReader.parse(text))
    }

    static func nest(species: JSONValue = "BAEA", status: JSONValue = "Active", protection: JSONValue = 2, buffer: JSONValue = 800) -> Feature {
        Feature(attributes: ["species": species, "status": status, "protection": protection, "buffer_m": buffer])
    }

    @Test("string codes are read through stringDicts, ranges as two values, Any and Null as none")
    func parsesFlatShape() throws {
        let definition = try Self.definition(Self.flatShape)
        #expect(definition.fieldGroups.map(\.name) == ["status_protection", "protection_buffer", "species_status"])
        #expect(definition.fieldGroups[0].contingencies[0] == [.code("Active"), .code(1)])
        #expect(definition.fieldGroups[0].contingencies[5] == [.code("Unknown"), .any])
        #expect(definition.fieldGroups[1].contingencies[2] == [.code(1), .range(minValue: 100, maxValue: 300)])
        #expect(definition.fieldGroups[1].contingencies[4] == [.null, .null])
    }

    @Test("the subTypes shape is read per subtype and only applies to features of that subtype")
    func parsesSubtypeShape() throws {
        let definition = try Self.definition(Self.subtypeShape)
        #expect(definition.fieldGroups.count == 1)
        #expect(definition.fieldGroups[0].subtypeCode == 100)
        #expect(definition.fieldGroups[0].contingencies == [[.code(3), .code("Good")], [.code(7), .any]])
        let airplane = Feature(attributes: ["type": 100, "vmake": 3, "vrating": "OK"])
        #expect(definition.validateContingencyConstraints(for: airplane, subtypeField: "type").map(\.severity) == [.error])
        var boat = airplane
        boat.attributes["type"] = 200
        #expect(definition.validateContingencyConstraints(for: boat, subtypeField: "type").isEmpty)
    }

    @Test("a bird nest whose buffer size is outside the range its protection level allows is a contingency error")
    func bufferOutsideRange() throws {
        let definition = try Self.definition(Self.flatShape)
        let violations = definition.validateContingencyConstraints(for: Self.nest(protection: 1, buffer: 800))
        #expect(violations.map(\.fieldGroup) == ["protection_buffer"])
        #expect(violations.map(\.severity) == [.error])
    }

    @Test("a miss in a non-restrictive group is a warning")
    func nonRestrictiveMiss() throws {
        let definition = try Self.definition(Self.flatShape)
        // A Peregrine Falcon nest marked Inactive: allowed by status_protection, unusual for species_status.
        let violations = definition.validateContingencyConstraints(for: Self.nest(species: "PEFA", status: "Inactive", protection: 0, buffer: 20))
        #expect(violations == [ContingencyConstraintViolation(fieldGroup: "species_status", fields: ["species", "status"], severity: .warning)])
    }

    @Test("every seed-like valid nest passes, Any matching null too")
    func validNests() throws {
        let definition = try Self.definition(Self.flatShape)
        #expect(definition.validateContingencyConstraints(for: Self.nest()).isEmpty)
        #expect(definition.validateContingencyConstraints(for: Self.nest(species: "OSPR", status: "Inactive", protection: nil, buffer: nil)).isEmpty)
        #expect(definition.validateContingencyConstraints(for: Self.nest(species: "OSPR", status: "Unknown", protection: 0, buffer: nil)).isEmpty)
    }

    @Test("contingentValues(for:field:) offers the values that fit the feature's other values")
    func offeredValues() throws {
        let definition = try Self.definition(Self.flatShape)
        let protection = definition.contingentValues(for: Self.nest(status: "Inactive", buffer: 200), field: "protection")
        #expect(protection.byFieldGroup["status_protection"] == [.code(0), .code(1), .null])
        #expect(protection.byFieldGroup["protection_buffer"] == [.code(1)])
        let buffer = definition.contingentValues(for: Self.nest(protection: 1), field: "buffer_m")
        #expect(buffer.byFieldGroup == ["protection_buffer": [.range(minValue: 100, maxValue: 300)]])
    }

    @Test("a contingency with fewer types than fields is rejected with its path")
    func malformed() {
        let text = #"""
            {"contingentValuesDefinition":{"fieldGroups":[{"name":"g","restrictive":true,"fields":["a","b"],
             "contingentValues":[{"id":1,"types":[3],"values":[1]}]}]}}
            """#
        #expect(throws: ContingentValuesDefinition.ParseError.self) { try Self.definition(text) }
    }

    @Test("domains: a code outside the coded values, a number outside the range, a null in a non-nullable field")
    func domains() throws {
        let layer = try WireJSON.decode(LayerInfo.self, from: Fixtures.parksLayer)
        let feature = Feature(attributes: ["NAME": nil, "CONDITION": 7, "OBJECTID": 3, "NOPE": 1])
        let violations = DomainValidator.violations(of: feature, in: layer)
        #expect(violations.map(\.field) == ["CONDITION", "NAME", "NOPE"])
        #expect(violations.map(\.kind) == [.notInCodedValues(domain: "Condition"), .nullNotAllowed, .unknownField])
        #expect(DomainValidator.violations(of: Feature(attributes: ["NAME": "Zion", "CONDITION": 2]), in: layer).isEmpty)
    }
}
