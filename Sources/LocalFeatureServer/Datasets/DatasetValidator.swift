import FeatureModel

/// Checks a well-formed ``ServiceDefinition`` for what the store and the clients rely on: unique ids and names,
/// identity fields, both sides of every relationship, contingent values that fit the domains, and seed rows that
/// the layer accepts. Pure; every problem is reported with its JSON path.
enum DatasetValidator {
    static func validate(_ definition: ServiceDefinition, issues: inout DatasetIssues) {
        var seenIds: [Int: Int] = [:]
        for (index, layer) in definition.layers.enumerated() {
            if let first = seenIds[layer.info.id] {
                issues.add(
                    "layers[\(index)].id", "id \(layer.info.id) is also used by layers[\(first)]", fix: "give every layer and table its own id")
            } else {
                seenIds[layer.info.id] = index
            }
        }
        for (index, layer) in definition.layers.enumerated() {
            validate(layer, path: "layers[\(index)]", definition: definition, issues: &issues)
        }
    }

    private static func validate(_ layer: LayerDefinition, path: String, definition: ServiceDefinition, issues: inout DatasetIssues) {
        let info = layer.info
        var names: Set<String> = []
        for (index, field) in info.fields.enumerated() where !names.insert(field.name.lowercased()).inserted {
            issues.add("\(path).fields[\(index)].name", "'\(field.name)' appears twice", fix: "field names must be unique (case-insensitive)")
        }
        if info.field(named: info.objectIdField)?.type != .oid {
            issues.add(
                "\(path).objectIdField", "no esriFieldTypeOID field named '\(info.objectIdField)'",
                fix: "add {\"name\": \"\(info.objectIdField)\", \"type\": \"esriFieldTypeOID\", \"nullable\": false, \"editable\": false}")
        }
        if let globalIdField = info.globalIdField, info.field(named: globalIdField)?.type != .globalID {
            issues.add(
                "\(path).globalIdField", "no esriFieldTypeGlobalID field named '\(globalIdField)'",
                fix:
                    "add {\"name\": \"\(globalIdField)\", \"type\": \"esriFieldTypeGlobalID\", \"length\": 38, \"nullable\": false, \"editable\": false}"
            )
        }
        if let displayField = info.displayField, info.field(named: displayField) == nil {
            issues.add("\(path).displayField", "no field named '\(displayField)'", fix: "name one of the layer's fields")
        }
        for (index, relationship) in (info.relationships ?? []).enumerated() {
            validate(relationship, path: "\(path).relationships[\(index)]", layer: info, definition: definition, issues: &issues)
        }
        for (index, group) in (layer.contingentValues ?? []).enumerated() {
            validate(group, path: "\(path).contingentValues.fieldGroups[\(index)]", layer: info, issues: &issues)
        }
        let schema = LayerSchema(info: info, serviceLayers: [])
        for (index, row) in layer.seedRows.enumerated() {
            for (name, value) in row.attributes.sorted(by: { $0.key < $1.key }) {
                let valuePath = "\(path).seedRows[\(index)].attributes.\(name)"
                guard let fieldIndex = schema.fieldIndex(named: name) else {
                    issues.add(valuePath, "no field named '\(name)'", fix: "use one of \(info.fields.map(\.name).joined(separator: ", "))")
                    continue
                }
                if fieldIndex == schema.objectIdField { continue }
                if case .failure(let failure) = AttributeCoercion.coerce(value, for: schema.fields[fieldIndex]) {
                    issues.add(valuePath, failure.error.description, fix: "change the value to fit the field (type, length, domain)")
                }
            }
        }
    }

    private static func validate(
        _ relationship: RelationshipInfo, path: String, layer: LayerInfo, definition: ServiceDefinition, issues: inout DatasetIssues
    ) {
        if layer.field(named: relationship.keyField) == nil {
            issues.add("\(path).keyField", "no field named '\(relationship.keyField)' in layer \(layer.id)", fix: "name one of the layer's fields")
        }
        guard let related = definition.layer(id: relationship.relatedTableId)?.info else {
            issues.add(
                "\(path).relatedTableId", "no layer or table with id \(relationship.relatedTableId)", fix: "use the id of a layer in this file")
            return
        }
        let counterpart = related.relationships?.first { $0.id == relationship.id }
        let otherRole: RelationshipRole = relationship.role == .origin ? .destination : .origin
        if let counterpart {
            if counterpart.role != otherRole || counterpart.relatedTableId != layer.id || counterpart.cardinality != relationship.cardinality
                || counterpart.composite != relationship.composite
            {
                issues.add(
                    path, "its counterpart in layer \(related.id) does not match",
                    fix:
                        "layer \(related.id) must list relationship \(relationship.id) with role \(otherRole.rawValue), relatedTableId \(layer.id) and the same cardinality and composite"
                )
            }
        } else {
            issues.add(
                path, "layer \(related.id) does not list relationship \(relationship.id)",
                fix: "add it there with role \(otherRole.rawValue) and relatedTableId \(layer.id)")
        }
        guard relationship.cardinality == .manyToMany else { return }
        guard let tableId = relationship.relationshipTableId, let table = definition.layer(id: tableId)?.info else {
            issues.add("\(path).relationshipTableId", "no relationship table", fix: "use the id of the table that holds the links")
            return
        }
        if let key = relationship.keyFieldInRelationshipTable, table.field(named: key) == nil {
            issues.add("\(path).keyFieldInRelationshipTable", "no field named '\(key)' in table \(tableId)", fix: "name one of that table's fields")
        }
    }

    private static func validate(_ group: ContingentFieldGroup, path: String, layer: LayerInfo, issues: inout DatasetIssues) {
        let fields = group.fields.map { layer.field(named: $0) }
        for (index, field) in fields.enumerated() {
            if field == nil {
                issues.add("\(path).fields[\(index)]", "no field named '\(group.fields[index])'", fix: "name one of the layer's fields")
            } else if field?.domain == nil {
                issues.add(
                    "\(path).fields[\(index)]", "field '\(group.fields[index])' has no domain", fix: "give the field a coded-value or range domain")
            }
        }
        for (row, contingency) in group.contingencies.enumerated() {
            for (index, value) in contingency.enumerated() where index < fields.count {
                guard let domain = fields[index]?.domain else { continue }
                let valuePath = "\(path).contingencies[\(row)][\(index)]"
                switch (value, domain) {
                case (.code(let code), _) where !domain.contains(code):
                    issues.add(valuePath, "\(code) is not in domain '\(domain.name)'", fix: "use one of the domain's codes")
                case (.range, .codedValue):
                    issues.add(valuePath, "a range on coded-value domain '\(domain.name)'", fix: "use a code, null or {\"any\": true}")
                case (.range(let low, let high), .range(_, let minValue, let maxValue)) where low < minValue || high > maxValue:
                    issues.add(valuePath, "range [\(low), \(high)] leaves domain '\(domain.name)'", fix: "keep it within [\(minValue), \(maxValue)]")
                default: break
                }
            }
        }
    }
}
