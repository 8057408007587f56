package import FeatureModel
package import FeatureServiceClient

/// Makes generated adds respect a layer's contingent values, breaks a chosen share of them on purpose, and judges
/// each the way the ArcGIS Maps SDKs do before sending. Pure and seeded.
///
/// Respecting: for every field group, one of its contingencies is drawn and its fields set from it (a code, a value
/// inside a range, null, or the generated value for `any`). Breaking: a restrictive field group gets a combination
/// that none of its contingencies allows; without one, a field gets a value its domain refuses (a code not in the
/// list, a number past the range, null where null is not allowed).
///
/// Subtypes as the SDKs see them: a feature gets the field groups of its subtype (the value of the layer's
/// `typeIdField`) and those of no subtype, and a field's domain is its subtype's when the subtype names one.
package struct ValidityShaper: Sendable {
    package let layer: LayerInfo
    package let contingentValues: ContingentValuesDefinition?

    package init(layer: LayerInfo, contingentValues: ContingentValuesDefinition?) {
        self.layer = layer
        self.contingentValues = contingentValues
    }

    /// Whether the layer has anything to break: a restrictive field group, a domain, or a required field.
    var canBreak: Bool {
        if contingentValues?.fieldGroups.contains(where: { $0.isRestrictive && !$0.contingencies.isEmpty }) == true { return true }
        return breakableFields.isEmpty == false
    }

    /// The field groups that apply to `feature`: its subtype's and those of no subtype.
    func groups(for feature: Feature) -> [ContingentValuesDefinition.FieldGroup] {
        contingentValues?.groups(for: feature, subtypeField: layer.typeIdField) ?? []
    }

    /// The seeded stream the add at `index` is shaped with: the same draws for the same seed and index.
    static func random(seed: UInt64, index: Int) -> SplitMix64 {
        SplitMix64(seed: seed ^ UInt64(truncatingIfNeeded: index) &* 0xD1B5_4A32_D192_ED03)
    }

    /// `feature` with every field group of its subtype set from one of its contingencies.
    package func respecting(_ feature: Feature, random: inout SplitMix64) -> Feature {
        let groups = groups(for: feature)
        guard !groups.isEmpty else { return feature }
        var shaped = feature
        // Groups share fields (status–protection, protection–buffer): restrictive groups first, and each draws only among
        // the contingencies that agree with the fields earlier groups set, so a later group never undoes an earlier one.
        var assigned: Set<String> = []
        for group in groups.sorted(by: { $0.isRestrictive && !$1.isRestrictive }) where !group.contingencies.isEmpty {
            let agreeing = group.contingencies.filter { row in
                zip(group.fields, row).allSatisfy { field, value in !assigned.contains(field) || value.matches(shaped.attributes[field] ?? .null) }
            }
            // No contingency agrees with what earlier groups set: leave this group alone rather than undo them.
            guard !agreeing.isEmpty else { continue }
            let contingency = agreeing[Int(random.next() % UInt64(agreeing.count))]
            for (field, value) in zip(group.fields, contingency) {
                if assigned.contains(field) && value.matches(shaped.attributes[field] ?? .null) { continue }
                assigned.insert(field)
                switch value {
                case .any: continue
                case .null: shaped.attributes[field] = .null
                case .code(let code): shaped.attributes[field] = code
                case .range(let low, let high):
                    let x = low + (high - low) * random.nextUnit()
                    shaped.attributes[field] = isInteger(field) ? .int(Int64(x.rounded(.down))) : .double(x)
                }
            }
        }
        return shaped
    }

    /// `feature` made invalid: a restrictive contingency broken when the layer has one, else a domain.
    package func breaking(_ feature: Feature, random: inout SplitMix64) -> Feature {
        if let broken = breakingContingency(feature, random: &random) { return broken }
        let fields = breakableFields
        guard !fields.isEmpty else { return feature }
        let field = fields[Int(random.next() % UInt64(fields.count))]
        var broken = feature
        switch domain(of: field, for: feature) {
        case .codedValue(_, let values)?:
            let codes = values.map(\.code)
            if codes.contains(where: { $0.stringValue != nil }) {
                broken.attributes[field.name] = .string(String("not-a-code".prefix(max(field.length ?? 10, 1))))
            } else {
                let highest = codes.compactMap(\.doubleValue).max() ?? 0
                broken.attributes[field.name] = .int(Int64(highest) + 1000)
            }
        case .range(_, _, let high)?:
            broken.attributes[field.name] = isInteger(field.name) ? .int(Int64(high.rounded(.down)) + 1000) : .double(high + 1000)
        case nil:
            broken.attributes[field.name] = .null
        }
        return broken
    }

    /// Why the SDK would refuse `feature` (domains, restrictive contingent values), or nil when it would send it.
    /// Non-restrictive contingent values are warnings in the SDK: the feature is still sent.
    package func refusal(_ feature: Feature) -> String? {
        if let violation = DomainValidator.violations(of: feature, in: layer, isNew: true).first {
            switch violation.kind {
            case .unknownField: return "field not in the layer"
            case .nullNotAllowed: return "null in a field that does not accept null"
            case .notInCodedValues(let domain): return "a value outside coded-value domain '\(domain)'"
            case .outOfRange(let domain, _, _): return "a value outside range domain '\(domain)'"
            }
        }
        if let violation = contingentValues?.validateContingencyConstraints(for: feature, subtypeField: layer.typeIdField).first(where: {
            $0.severity == .error
        }) {
            return "no contingent value of restrictive field group '\(violation.fieldGroup)' allows the combination"
        }
        return nil
    }

    private func breakingContingency(_ feature: Feature, random: inout SplitMix64) -> Feature? {
        guard let definition = contingentValues else { return nil }
        var groups = groups(for: feature).filter { $0.isRestrictive && !$0.contingencies.isEmpty }
        // Try the groups from a random one on: one whose fields have no codes to combine (a range) may not be breakable.
        let start = groups.isEmpty ? 0 : Int(random.next() % UInt64(groups.count))
        groups = Array(groups[start...] + groups[..<start])
        for group in groups {
            if let broken = breaking(group, of: definition, feature, random: &random) { return broken }
        }
        return nil
    }

    private func breaking(
        _ group: ContingentValuesDefinition.FieldGroup, of definition: ContingentValuesDefinition, _ feature: Feature, random: inout SplitMix64
    ) -> Feature? {
        // Candidate values per field: the codes of its domain, else those its contingencies name.
        let candidates: [[JSONValue]] = group.fields.map { name in
            let field = layer.field(named: name)
            if case .codedValue(_, let values)? = field.flatMap({ domain(of: $0, for: feature) }), !values.isEmpty { return values.map(\.code) }
            return group.contingencies.compactMap { row in
                guard let index = group.fields.firstIndex(of: name), case .code(let code) = row[index] else { return nil }
                return code
            }
        }
        guard candidates.allSatisfy({ !$0.isEmpty }) else { return nil }
        for _ in 0..<64 {
            var broken = feature
            for (name, values) in zip(group.fields, candidates) { broken.attributes[name] = values[Int(random.next() % UInt64(values.count))] }
            let violations = definition.validateContingencyConstraints(for: broken, subtypeField: layer.typeIdField)
            if violations.contains(where: { $0.fieldGroup == group.name && $0.severity == .error }) { return broken }
        }
        return nil
    }

    /// The domain of `field` for `feature`: its subtype's, when the subtype names one for the field, else the field's.
    private func domain(of field: Field, for feature: Feature) -> Domain? {
        layer.subtype(of: feature)?.domain(of: field.name) ?? field.domain
    }

    /// Editable fields whose value can be made invalid: with a domain, or not nullable.
    private var breakableFields: [Field] {
        let skipped: Set<String> = [layer.objectIdField.lowercased(), layer.globalIdField?.lowercased() ?? ""]
        return layer.fields.filter { field in
            field.isEditable && !skipped.contains(field.name.lowercased()) && field.type != .oid && field.type != .globalID
                && field.type != .geometry && (field.domain != nil || !field.isNullable)
        }
    }

    private func isInteger(_ name: String) -> Bool {
        let type = layer.fields.first { $0.name.lowercased() == name.lowercased() }?.type
        return type == .integer || type == .smallInteger || type == .bigInteger
    }
}
