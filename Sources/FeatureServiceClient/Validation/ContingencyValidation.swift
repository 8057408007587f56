public import FeatureModel

/// A field group whose contingent values a feature does not satisfy, as the ArcGIS Maps SDKs report it.
///
/// A miss in a restrictive group is an ``Severity/error``; in a non-restrictive group a ``Severity/warning``. Neither
/// blocks an edit: validation is for the caller.
public struct ContingencyConstraintViolation: Sendable, Hashable, CustomStringConvertible {
    /// How serious the miss is.
    public enum Severity: String, Sendable, Hashable {
        /// The group is restrictive: the combination is not allowed.
        case error
        /// The group is not restrictive: the combination is unusual but allowed.
        case warning
    }

    /// The field group's name.
    public var fieldGroup: String
    /// The group's fields, in contingency order.
    public var fields: [String]
    /// Error (restrictive group) or warning.
    public var severity: Severity

    /// A violation.
    package init(fieldGroup: String, fields: [String], severity: Severity) {
        self.fieldGroup = fieldGroup
        self.fields = fields
        self.severity = severity
    }

    /// The severity, the fields and the field group, as a sentence.
    public var description: String {
        "\(severity): the values of \(fields.joined(separator: ", ")) match no contingency of field group '\(fieldGroup)'"
    }
}

/// The contingent values a field may take, by field group, given the feature's other values.
public struct ContingentValuesResult: Sendable, Hashable {
    /// For each field group containing the field, the values of the contingencies that the feature's other values
    /// in that group match (duplicates removed, in contingency order).
    public var byFieldGroup: [String: [ContingentFieldValue]]

    /// A result.
    package init(byFieldGroup: [String: [ContingentFieldValue]]) {
        self.byFieldGroup = byFieldGroup
    }
}

extension ContingentValuesDefinition {
    /// The groups that apply to `feature`: those without a subtype, and those of the feature's subtype.
    /// - Parameter subtypeField: The layer's `typeIdField`, if it has one.
    public func groups(for feature: Feature, subtypeField: String?) -> [FieldGroup] {
        let code = subtypeField.flatMap { feature[attribute: $0] }
        return fieldGroups.filter { group in
            guard let wanted = group.subtypeCode else { return true }
            guard let code else { return false }
            return ContingentFieldValue.equal(wanted, code)
        }
    }

    /// One violation per applicable field group that `feature` matches no contingency of (ArcGIS Maps SDK semantics:
    /// `Any` matches null too; a group with no contingencies never fails). Pure.
    /// - Parameters:
    ///   - feature: The feature to check; a missing attribute counts as null.
    ///   - subtypeField: The layer's `typeIdField`, to pick the subtype's groups.
    /// - Returns: The violations, in field-group order: ``ContingencyConstraintViolation/Severity/error`` for
    ///   restrictive groups, ``ContingencyConstraintViolation/Severity/warning`` otherwise.
    public func validateContingencyConstraints(for feature: Feature, subtypeField: String? = nil) -> [ContingencyConstraintViolation] {
        groups(for: feature, subtypeField: subtypeField).compactMap { group in
            guard !group.contingencies.isEmpty else { return nil }
            let values = group.fields.map { feature[attribute: $0] ?? .null }
            let satisfied = group.contingencies.contains { contingency in
                zip(contingency, values).allSatisfy { $0.matches($1) }
            }
            guard !satisfied else { return nil }
            return ContingencyConstraintViolation(fieldGroup: group.name, fields: group.fields, severity: group.isRestrictive ? .error : .warning)
        }
    }

    /// The values `field` may take given `feature`'s values of the other fields of each group that contains it. Pure.
    /// - Parameters:
    ///   - feature: The feature; its own value of `field` is ignored.
    ///   - field: The field to offer values for (case-insensitive).
    ///   - subtypeField: The layer's `typeIdField`, to pick the subtype's groups.
    /// - Returns: By field-group name, the matching contingencies' values for `field`; groups without `field` are
    ///   left out.
    public func contingentValues(for feature: Feature, field: String, subtypeField: String? = nil) -> ContingentValuesResult {
        var result: [String: [ContingentFieldValue]] = [:]
        for group in groups(for: feature, subtypeField: subtypeField) {
            guard let position = group.fields.firstIndex(where: { $0.lowercased() == field.lowercased() }) else { continue }
            let values = group.fields.map { feature[attribute: $0] ?? .null }
            var offered: [ContingentFieldValue] = result[group.name] ?? []
            for contingency in group.contingencies {
                let othersMatch = contingency.indices.allSatisfy { $0 == position || contingency[$0].matches(values[$0]) }
                if othersMatch && !offered.contains(contingency[position]) { offered.append(contingency[position]) }
            }
            result[group.name] = offered
        }
        return ContingentValuesResult(byFieldGroup: result)
    }
}
