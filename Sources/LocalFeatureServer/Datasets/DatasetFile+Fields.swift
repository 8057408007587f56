import FeatureModel

extension DatasetFile {
    /// The field types a dataset may use.
    static let fieldTypes: [FieldType] = [
        .oid, .globalID, .guid, .string, .smallInteger, .integer, .bigInteger, .single, .double, .date,
    ]
    static let fieldKeys = ["name", "type", "alias", "length", "nullable", "editable", "domain", "defaultValue"]
    static let relationshipKeys = [
        "id", "name", "relatedTableId", "cardinality", "role", "keyField", "composite", "relationshipTableId", "keyFieldInRelationshipTable",
    ]

    static func readField(_ json: JSONValue, path: String, issues: inout DatasetIssues) -> Field? {
        guard let members = issues.object(json, path) else { return nil }
        issues.checkKeys(members, known: fieldKeys, path: path)
        let name = issues.string(members, "name", path, required: true)
        var type: FieldType?
        if let text = issues.string(members, "type", path, required: true) {
            if fieldTypes.contains(FieldType(rawValue: text)) {
                type = FieldType(rawValue: text)
            } else {
                issues.add("\(path).type", "unknown field type '\(text)'", fix: "use one of \(fieldTypes.map(\.rawValue).joined(separator: ", "))")
            }
        }
        let length = issues.int(members, "length", path, minimum: 0)
        let nullable = issues.bool(members, "nullable", path)
        let editable = issues.bool(members, "editable", path)
        var domain: Domain?
        if let value = members["domain"], !value.isNull {
            domain = readDomain(value, path: "\(path).domain", fieldType: type, issues: &issues)
        }
        guard let name, let type else { return nil }
        return Field(
            name: name, type: type, alias: issues.string(members, "alias", path), length: length, nullable: nullable ?? true,
            editable: editable ?? true, domain: domain, defaultValue: members["defaultValue"]
        )
    }

    static func readDomain(_ json: JSONValue, path: String, fieldType: FieldType?, issues: inout DatasetIssues) -> Domain? {
        guard let members = issues.object(json, path) else { return nil }
        issues.checkKeys(members, known: ["type", "name", "codedValues", "range"], path: path)
        let name = issues.string(members, "name", path, required: true) ?? ""
        let kind: String? = issues.string(members, "type", path, required: true)
        switch kind {
        case "codedValue"?:
            guard let items = issues.array(members["codedValues"], "\(path).codedValues") else { return nil }
            if items.isEmpty { issues.add("\(path).codedValues", "empty", fix: "list at least one {\"name\": …, \"code\": …}") }
            var values: [CodedValue] = []
            for (index, item) in items.enumerated() {
                let itemPath = "\(path).codedValues[\(index)]"
                guard let coded = issues.object(item, itemPath) else { continue }
                let codedName = issues.string(coded, "name", itemPath, required: true) ?? ""
                guard let code = coded["code"], !code.isNull else {
                    issues.add("\(itemPath).code", "missing", fix: "add \"code\": a number or a string")
                    continue
                }
                if let fieldType, fieldType.isNumeric, code.doubleValue == nil {
                    issues.add("\(itemPath).code", "\(code) is not a number but the field is \(fieldType)", fix: "use numeric codes")
                } else if let fieldType, fieldType == .string, code.stringValue == nil {
                    issues.add("\(itemPath).code", "\(code) is not a string but the field is \(fieldType)", fix: "write the code in quotes")
                }
                values.append(CodedValue(name: codedName, code: code))
            }
            return .codedValue(name: name, codedValues: values)
        case "range"?:
            guard case .array(let bounds)? = members["range"], bounds.count == 2, let low = bounds[0].doubleValue, let high = bounds[1].doubleValue
            else {
                issues.add("\(path).range", "expected [min, max]", fix: "write two numbers, e.g. \"range\": [0, 100]")
                return nil
            }
            if low > high { issues.add("\(path).range", "min \(low) is above max \(high)", fix: "swap them") }
            if let fieldType, !fieldType.isNumeric { issues.add(path, "a range domain on a \(fieldType) field", fix: "use a coded-value domain") }
            return .range(name: name, minValue: low, maxValue: high)
        case let other?:
            issues.add("\(path).type", "unknown domain type '\(other)'", fix: "use codedValue or range")
            return nil
        case nil:
            return nil
        }
    }

    static func readRelationship(_ json: JSONValue, path: String, issues: inout DatasetIssues) -> RelationshipInfo? {
        guard let members = issues.object(json, path) else { return nil }
        issues.checkKeys(members, known: relationshipKeys, path: path)
        let id = issues.int(members, "id", path, required: true, minimum: 0)
        let name = issues.string(members, "name", path) ?? ""
        let relatedTableId = issues.int(members, "relatedTableId", path, required: true, minimum: 0)
        var cardinality: RelationshipCardinality?
        if let text = issues.string(members, "cardinality", path, required: true) {
            cardinality = RelationshipCardinality(rawValue: text)
            if cardinality == nil {
                issues.add(
                    "\(path).cardinality", "unknown cardinality '\(text)'",
                    fix: "use esriRelCardinalityOneToOne, esriRelCardinalityOneToMany or esriRelCardinalityManyToMany")
            }
        }
        var role: RelationshipRole?
        if let text = issues.string(members, "role", path, required: true) {
            role = RelationshipRole(rawValue: text)
            if role == nil { issues.add("\(path).role", "unknown role '\(text)'", fix: "use esriRelRoleOrigin or esriRelRoleDestination") }
        }
        let keyField = issues.string(members, "keyField", path, required: true)
        let composite = issues.bool(members, "composite", path) ?? false
        let relationshipTableId = issues.int(members, "relationshipTableId", path, minimum: 0)
        let keyFieldInRelationshipTable = issues.string(members, "keyFieldInRelationshipTable", path)
        if cardinality == .manyToMany && (relationshipTableId == nil || keyFieldInRelationshipTable == nil) {
            issues.add(
                path, "a many-to-many relationship without its relationship table", fix: "add relationshipTableId and keyFieldInRelationshipTable")
        }
        guard let id, let relatedTableId, let cardinality, let role, let keyField else { return nil }
        return RelationshipInfo(
            id: id, name: name, relatedTableId: relatedTableId, cardinality: cardinality, role: role, keyField: keyField,
            composite: composite, relationshipTableId: relationshipTableId, keyFieldInRelationshipTable: keyFieldInRelationshipTable
        )
    }

    static func readContingentValues(_ json: JSONValue, path: String, issues: inout DatasetIssues) -> [ContingentFieldGroup]? {
        guard let members = issues.object(json, path) else { return nil }
        issues.checkKeys(members, known: ["fieldGroups"], path: path)
        guard let items = issues.array(members["fieldGroups"], "\(path).fieldGroups") else { return nil }
        var groups: [ContingentFieldGroup] = []
        for (index, item) in items.enumerated() {
            let groupPath = "\(path).fieldGroups[\(index)]"
            guard let group = issues.object(item, groupPath) else { continue }
            issues.checkKeys(group, known: ["name", "restrictive", "fields", "contingencies"], path: groupPath)
            let name = issues.string(group, "name", groupPath, required: true) ?? ""
            let restrictive = issues.bool(group, "restrictive", groupPath) ?? false
            var fields: [String] = []
            if let names = issues.array(group["fields"], "\(groupPath).fields") {
                for (fieldIndex, value) in names.enumerated() {
                    if let text = value.stringValue {
                        fields.append(text)
                    } else {
                        issues.add("\(groupPath).fields[\(fieldIndex)]", "expected a field name", fix: "write the name in quotes")
                    }
                }
            }
            var contingencies: [[ContingentValue]] = []
            if let rows = issues.array(group["contingencies"], "\(groupPath).contingencies") {
                for (rowIndex, row) in rows.enumerated() {
                    let rowPath = "\(groupPath).contingencies[\(rowIndex)]"
                    guard let values = issues.array(row, rowPath) else { continue }
                    if values.count != fields.count {
                        issues.add(rowPath, "\(values.count) values for \(fields.count) fields", fix: "give one value per field of the group")
                    }
                    var parsed: [ContingentValue] = []
                    for (valueIndex, value) in values.enumerated() {
                        if let contingent = ContingentValue(json: value) {
                            parsed.append(contingent)
                        } else {
                            issues.add(
                                "\(rowPath)[\(valueIndex)]", "\(value) is not a contingent value",
                                fix: "write a code, null, {\"any\": true} or {\"range\": [min, max]}")
                        }
                    }
                    contingencies.append(parsed)
                }
            }
            groups.append(ContingentFieldGroup(name: name, restrictive: restrictive, fields: fields, contingencies: contingencies))
        }
        return groups
    }
}
