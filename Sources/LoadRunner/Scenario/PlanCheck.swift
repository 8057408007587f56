package import FeatureModel

/// Checks a plan against the service's metadata and lists every problem at once. Pure.
///
/// It catches before any load what would otherwise fail every iteration: a layer the service lacks, client
/// GlobalIDs on a layer without a GlobalID field, a relationship id the layer does not have, attachments on a layer
/// without them, an envelope on a table, updates or deletes on a layer with nothing to update or delete.
package enum PlanCheck {
    /// - Parameter featureCounts: the features each layer holds, where known: an operation that needs existing
    ///   features on a layer with none, that no setup seeds and no operation of the plan adds to, is refused.
    package static func check(_ plan: ScenarioPlan, layers: [Int: LayerInfo], featureCounts: [Int: Int] = [:]) -> [String] {
        let known = layers.values.sorted { $0.id < $1.id }.map { "\($0.id) (\($0.name))" }.joined(separator: ", ")
        var problems: [String] = []
        for spec in plan.scenarios {
            for op in spec.operations {
                let field = "scenarios.\(spec.name)" + (spec.operations.count > 1 ? ".mix[\(op.label)]" : "")
                guard let layer = layers[op.layer] else {
                    problems.append("\(field).layer: the service has no layer or table with id \(op.layer). Fix: use one of \(known)")
                    continue
                }
                problems += op.settings.owner.problems(OperationCheck(spec: op, layer: layer, field: field))
                if let problem = nothingToChange(op, in: spec, plan: plan, layer: layer, featureCounts: featureCounts, field: field) {
                    problems.append(problem)
                }
            }
        }
        return problems
    }

    /// The layers whose feature count decides a plan: those an operation needs existing features of, with nothing
    /// in the plan to provide them (no setup seed, no adds to the layer).
    static func layersNeedingFeatures(_ plan: ScenarioPlan) -> Set<Int> {
        var result: Set<Int> = []
        for spec in plan.scenarios where spec.setup.seed == 0 {
            for op in spec.operations where needsExisting(op) && !addedTo(op.layer, in: plan) { result.insert(op.layer) }
        }
        return result
    }

    static func needsExisting(_ op: OperationSpec) -> Bool { op.needsExistingFeatures }

    static func addedTo(_ layer: Int, in plan: ScenarioPlan) -> Bool {
        plan.scenarios.contains { spec in spec.operations.contains { $0.layer == layer && $0.addsPerIteration > 0 } }
    }

    /// An operation that would be refused at every iteration: it needs existing features, and the layer has none
    /// this scenario could use (or it samples none), no setup seeds any, and nothing in the plan adds any.
    static func nothingToChange(
        _ op: OperationSpec, in spec: ScenarioSpec, plan: ScenarioPlan, layer: LayerInfo, featureCounts: [Int: Int], field: String
    ) -> String? {
        guard let need = op.settings.owner.existingFeatures, spec.setup.seed == 0, !addedTo(op.layer, in: plan),
            let count = featureCounts[op.layer]
        else { return nil }
        let available = spec.setup.sample > 0 ? count : 0
        guard available == 0 else { return nil }
        let why = count == 0 ? "the layer is empty" : "setup.sample is 0, so none of its \(count) features is drawn"
        return
            "\(field).\(need.key): layer \(op.layer) (\(layer.name)) has no existing feature to \(need.verb) (\(why)), and nothing in the plan adds any, "
            + "so every iteration would be refused. Fix: add `setup: { seed: 100 }` to the scenario to add features first"
    }

    /// A relationship the layer does not take part in; or, with `role`, a one-to-one or one-to-many relationship of
    /// which the layer is on the wrong side: a deep insert adds the parent (the origin); relate changes the foreign
    /// key, which the destination holds.
    static func relationshipProblems(_ id: Int, role: RelationshipRole?, _ check: OperationCheck) -> [String] {
        let (op, layer, field) = (check.spec, check.layer, check.field)
        let relationships = layer.relationships ?? []
        guard let relationship = relationships.first(where: { $0.id == id }) else {
            let ids = relationships.map { "\($0.id) (\($0.name))" }.joined(separator: ", ")
            return [
                "\(field).relationship: \(check.layerName) has no relationship \(id). Fix: "
                    + (ids.isEmpty ? "pick a layer that takes part in a relationship" : "use one of \(ids)")
            ]
        }
        guard let role, relationship.role != role, relationship.cardinality != .manyToMany else { return [] }
        if role == .origin {
            return [
                "\(field).layer: a deep insert adds the parent, but \(check.layerName) is the destination of relationship "
                    + "\(relationship.id) (\(relationship.name)). Fix: use `layer: \(relationship.relatedTableId)`, the origin"
            ]
        }
        return [
            "\(field).layer: relate changes the foreign key, which the destination holds, but layer \(op.layer) (\(layer.name)) is the "
                + "origin of relationship \(relationship.id) (\(relationship.name)). Fix: use `layer: \(relationship.relatedTableId)`"
        ]
    }

    /// Client GlobalIDs on a layer without a GlobalID field.
    static func globalIdProblems(_ clientGlobalIds: Bool, _ check: OperationCheck) -> [String] {
        guard clientGlobalIds && check.layer.globalIdField == nil else { return [] }
        return [
            "\(check.field).clientGlobalIds: \(check.layerName) has no GlobalID field. Fix: remove clientGlobalIds or pick a layer with GlobalIDs"
        ]
    }

    /// Adds broken on purpose on a layer with no rule to break.
    static func invalidRateProblems(_ invalidRate: Double, adds: Int, _ check: OperationCheck) -> [String] {
        let layer = check.layer
        guard
            invalidRate > 0 && adds > 0 && layer.hasContingentValuesDefinition != true
                && !layer.fields.contains(where: { $0.isEditable && $0.type != .oid && $0.type != .globalID && ($0.domain != nil || !$0.isNullable) })
        else { return [] }
        return [
            "\(check.field).invalidRate: \(check.layerName) has no contingent values, domains or required fields to break. Fix: remove invalidRate or pick a layer with them (e.g. the birdnests dataset)"
        ]
    }

    /// Attachments on a layer without them.
    static func attachmentProblems(_ check: OperationCheck) -> [String] {
        guard check.layer.hasAttachments != true else { return [] }
        return ["\(check.field): \(check.layerName) has no attachments. Fix: pick a layer with hasAttachments"]
    }
}
