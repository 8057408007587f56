import BatchApply
import FeatureModel
import Testing

@Suite struct FieldCoercionTests {
    static let surface = Domain.codedValue(name: "Surface", codedValues: [CodedValue(name: "Paved", code: 1), CodedValue(name: "Gravel", code: 2)])
    static let fields: [Field] = [
        Field(name: "OBJECTID", type: .oid, nullable: false, editable: false),
        Field(name: "GlobalID", type: .globalID, length: 38, nullable: false, editable: false),
        Field(name: "NAME", type: .string, length: 5),
        Field(name: "SMALL", type: .smallInteger),
        Field(name: "COUNT", type: .integer),
        Field(name: "BIG", type: .bigInteger),
        Field(name: "RATIO", type: .single),
        Field(name: "AMOUNT", type: .double, domain: .range(name: "Amounts", minValue: 0, maxValue: 100)),
        Field(name: "WHEN", type: .date),
        Field(name: "REF", type: .guid),
        Field(name: "SURFACE", type: .smallInteger, domain: surface),
        Field(name: "Shape__Area", type: .double, editable: false),
        Field(name: "REQUIRED", type: .string, nullable: false),
    ]

    private func coerce(_ attributes: [String: JSONValue], kind: InputEdit.Kind = .update) -> (attributes: [String: JSONValue], problems: [String]) {
        let (feature, problems) = FieldCoercion.coerce(Feature(attributes: attributes), fields: Self.fields, kind: kind)
        return (feature.attributes, problems)
    }

    @Test("names are matched in any case and rewritten to the layer's spelling; strings are typed")
    func typesStrings() {
        let (attributes, problems) = coerce([
            "objectid": "12", "name": "Elm", "small": "-5", "count": "40000", "big": "9000000000", "ratio": "0.5",
            "amount": "12", "when": "2024-05-01", "ref": "0a1b2c3d-0000-4000-8000-00000000000f", "required": "x",
        ])
        #expect(problems.isEmpty)
        #expect(
            attributes == [
                "OBJECTID": 12, "NAME": "Elm", "SMALL": -5, "COUNT": 40000, "BIG": 9_000_000_000, "RATIO": 0.5, "AMOUNT": 12,
                "WHEN": 1_714_521_600_000, "REF": "{0A1B2C3D-0000-4000-8000-00000000000F}", "REQUIRED": "x",
            ])
    }

    static let misfits: [(String, JSONValue, String)] = [
        ("SMALL", 40000, "outside -32768…32767"),
        ("COUNT", "3000000000", "outside -2147483648…2147483647"),
        ("COUNT", 2.5, "not a whole number"),
        ("COUNT", "2.5", "not a whole number"),
        ("COUNT", "lots", "'lots' is not an integer"),
        ("COUNT", true, "not an integer"),
        ("RATIO", "half", "not a number"),
        ("NAME", "too long", "is 8 characters; the field holds 5"),
        ("WHEN", "May 1st", "not a date"),
        ("WHEN", "2024-02-30", "not a date"),
        ("REF", "not-a-guid", "not a GUID"),
        ("AMOUNT", 101, "outside 0…100 of domain 'Amounts'"),
        ("SURFACE", 3, "not a code of domain 'Surface'"),
        ("REQUIRED", nil, "does not accept null"),
    ]

    @Test("values that do not fit are problems naming the field and the value", arguments: misfits)
    func problems(field: String, value: JSONValue, expected: String) {
        let (_, problems) = coerce([field: value])
        #expect(problems.count == 1)
        #expect(problems.first?.contains(expected) == true, "\(problems)")
    }

    static let dateCases: [(JSONValue, Int64)] = [
        (1_714_521_600_000, 1_714_521_600_000),
        ("1714521600000", 1_714_521_600_000),
        ("2024-05-01T12:30:00Z", 1_714_566_600_000),
        ("2024-05-01T12:30", 1_714_566_600_000),
        ("2024-05-01 14:30:00+02:00", 1_714_566_600_000),
        ("2024-05-01T07:30:00.250-0500", 1_714_566_600_250),
        ("1969-12-31", -86_400_000),
    ]

    @Test("dates: epoch milliseconds pass, ISO-8601 becomes epoch milliseconds UTC", arguments: dateCases)
    func dates(value: JSONValue, expected: Int64) {
        let (attributes, problems) = coerce(["WHEN": value])
        #expect(problems.isEmpty)
        #expect(attributes["WHEN"] == .int(expected))
    }

    @Test("an unknown attribute is a problem that lists the fields")
    func unknownField() {
        let (attributes, problems) = coerce(["FOO": 1, "NAME": "a"])
        #expect(attributes == ["NAME": "a"])
        #expect(problems == ["no field 'FOO' in the layer; fields are \(Self.fields.map(\.name).joined(separator: ", "))"])
    }

    @Test("problems come in attribute-name order, whatever the record's order, and the first of two same-named attributes is kept")
    func problemOrder() {
        // Enough attributes that the dictionary's own order is not the names' order by chance.
        var attributes: [String: JSONValue] = ["ZULU": 1, "count": "many", "small": 70_000, "Name": "far too long", "NAME": "ok"]
        for index in 0..<10 { attributes["X\(index)"] = .int(Int64(index)) }
        let (fitted, problems) = coerce(attributes)
        // Sorted by name: NAME (upper case first) is kept and Name is the duplicate, then X0…X9, ZULU, count, small
        // (named in problems as the layer spells them).
        let named = problems.map { $0.split(separator: "'").dropFirst().first.map(String.init) ?? "" }
        #expect(named == ["NAME"] + (0..<10).map { "X\($0)" } + ["ZULU", "COUNT", "SMALL"], "\(problems)")
        #expect(fitted["NAME"] == "ok")
    }

    @Test("a coded value's name is taken for its code")
    func codedValueName() {
        #expect(coerce(["SURFACE": "gravel"]).attributes["SURFACE"] == 2)
        #expect(coerce(["SURFACE": "1"]).attributes["SURFACE"] == 1)
    }

    @Test("adds drop the object ID and non-editable fields, keep the GlobalID, and need required fields")
    func adds() {
        let (attributes, problems) = coerce(["OBJECTID": 5, "Shape__Area": 3.5, "GlobalID": "{0a1b2c3d-0000-4000-8000-00000000000f}"], kind: .add)
        #expect(attributes == ["GlobalID": "{0A1B2C3D-0000-4000-8000-00000000000F}"])
        #expect(problems == ["field 'REQUIRED' does not accept null"])
    }

    @Test("deletes keep only the key and map the reader's generic key names to the layer's")
    func deletes() {
        let layerFields = [Field(name: "FID", type: .oid), Field(name: "GUID_1", type: .globalID), Field(name: "NAME", type: .string)]
        let (byID, idProblems) = FieldCoercion.coerce(Feature(attributes: ["OBJECTID": 4]), fields: layerFields, kind: .delete)
        #expect(idProblems.isEmpty)
        #expect(byID.attributes == ["FID": 4])
        let (byGUID, _) = FieldCoercion.coerce(
            Feature(attributes: ["GlobalID": "{0a1b2c3d-0000-4000-8000-00000000000f}", "NAME": "x"]), fields: layerFields, kind: .delete)
        #expect(byGUID.attributes == ["GUID_1": "{0A1B2C3D-0000-4000-8000-00000000000F}"])
    }

    @Test("subtype domains decide which codes and names are valid")
    func subtypes() {
        let roads = Domain.codedValue(name: "Roads", codedValues: [CodedValue(name: "Asphalt", code: 7)])
        var layer = LayerInfo(
            id: 0, name: "streets", type: "Feature Layer", geometryType: .polyline, objectIdField: "OBJECTID", globalIdField: nil,
            fields: [
                Field(name: "OBJECTID", type: .oid), Field(name: "KIND", type: .integer),
                Field(name: "SURFACE", type: .smallInteger, domain: Self.surface),
            ])
        layer.typeIdField = "KIND"
        layer.types = [FeatureSubtype(id: 1, name: "Road", domains: ["SURFACE": roads])]
        let (feature, problems) = FieldCoercion.coerce(Feature(attributes: ["KIND": "1", "SURFACE": "asphalt"]), kind: .add, layer: layer)
        #expect(problems.isEmpty)
        #expect(feature.attributes == ["KIND": 1, "SURFACE": 7])
    }
}
