public import FeatureModel

/// Checks a plan against the service's metadata and lists every problem at once. Pure.
///
/// It catches before any load what would otherwise fail every iteration: a layer the service lacks, client
/// GlobalIDs on a layer without a GlobalID field, a relationship id the layer does not have, attachments on a layer
/// without them, an envelope on a table, updates or deletes on a layer with nothing to update or delete.
public enum PlanCheck {
    /// - Parameter featureCounts: the features each layer holds, where known: an operation that needs existing
    ///   features on a layer with none, that no setup seeds and no operation of the plan adds to, is refused.
    public static func check(_ plan: ScenarioPlan, layers: [Int: LayerInfo], featureCounts: [Int: Int] = [:]) -> [String] {
        let known = layers.values.sorted { $0.id < $1.id }.map { "\($0.id) (\($0.name))" }.joined(separator: ", ")
        var problems: [String] = []
        for spec in plan.scenarios {
            for op in spec.operations {
                let field = "scenarios.\(spec.name)" + (spec.operations.count > 1 ? ".mix[\(op.label)]" : "")
                guard let layer = layers[op.layer] else {
                    problems.append("\(field).layer: the service has no layer or table with id \(op.layer). Fix: use one of \(known)")
                    continue
                }
                if op.clientGlobalIds && layer.globalIdField == nil {
                    problems.append(
                        "\(field).clientGlobalIds: layer \(op.layer) (\(layer.name)) has no GlobalID field. Fix: remove clientGlobalIds or pick a layer with GlobalIDs")
                }
                if op.kind == .queryRelatedRecords || op.kind == .relate || op.kind == .deepInsert {
                    let relationships = layer.relationships ?? []
                    if let relationship = relationships.first(where: { $0.id == (op.relationship ?? 0) }) {
                        problems += roleProblems(op, relationship, layer: layer, field: field)
                    } else {
                        let ids = relationships.map { "\($0.id) (\($0.name))" }.joined(separator: ", ")
                        problems.append(
                            "\(field).relationship: layer \(op.layer) (\(layer.name)) has no relationship \(op.relationship ?? 0). Fix: "
                                + (ids.isEmpty ? "pick a layer that takes part in a relationship" : "use one of \(ids)"))
                    }
                }
                if op.invalidRate > 0 && op.addsPerIteration > 0 && layer.hasContingentValuesDefinition != true
                    && !layer.fields.contains(where: { $0.isEditable && $0.type != .oid && $0.type != .globalID && ($0.domain != nil || !$0.isNullable) })
                {
                    problems.append(
                        "\(field).invalidRate: layer \(op.layer) (\(layer.name)) has no contingent values, domains or required fields to break. Fix: remove invalidRate or pick a layer with them (e.g. the birdnests dataset)")
                }
                if op.kind == .deepInsert && op.attachments > 0 && layer.hasAttachments != true {
                    problems.append("\(field).attachments: layer \(op.layer) (\(layer.name)) has no attachments. Fix: set attachments: 0 or pick a layer with hasAttachments")
                }
                if (op.kind == .addAttachment || op.kind == .queryAttachments) && layer.hasAttachments != true {
                    problems.append("\(field): layer \(op.layer) (\(layer.name)) has no attachments. Fix: pick a layer with hasAttachments")
                }
                if op.envelope != nil && layer.geometryType == nil {
                    problems.append("\(field).envelope: \(layer.name) is a table without geometry. Fix: remove envelope or pick a layer")
                }
                if let problem = nothingToChange(op, in: spec, plan: plan, layer: layer, featureCounts: featureCounts, field: field) {
                    problems.append(problem)
                }
            }
        }
        return problems
    }

    /// The layers whose feature count decides a plan: those an operation needs existing features of, with nothing
    /// in the plan to provide them (no setup seed, no adds to the layer).
    package static func layersNeedingFeatures(_ plan: ScenarioPlan) -> Set<Int> {
        var result: Set<Int> = []
        for spec in plan.scenarios where spec.setup.seed == 0 {
            for op in spec.operations where needsExisting(op) && !addedTo(op.layer, in: plan) { result.insert(op.layer) }
        }
        return result
    }

    static func needsExisting(_ op: OperationSpec) -> Bool {
        op.kind.needsExistingFeatures || op.updates + op.deletes > 0 || op.whereClause.contains("{objectId}")
    }

    static func addedTo(_ layer: Int, in plan: ScenarioPlan) -> Bool {
        plan.scenarios.contains { spec in spec.operations.contains { $0.layer == layer && $0.addsPerIteration > 0 } }
    }

    /// An operation that would be refused at every iteration: it needs existing features, and the layer has none
    /// this scenario could use (or it samples none), no setup seeds any, and nothing in the plan adds any.
    static func nothingToChange(
        _ op: OperationSpec, in spec: ScenarioSpec, plan: ScenarioPlan, layer: LayerInfo, featureCounts: [Int: Int], field: String
    ) -> String? {
        guard needsExisting(op), spec.setup.seed == 0, !addedTo(op.layer, in: plan), let count = featureCounts[op.layer] else { return nil }
        let available = spec.setup.sample > 0 ? count : 0
        guard available == 0 else { return nil }
        let key = op.updates > 0 ? "updates" : op.deletes > 0 ? "deletes" : op.whereClause.contains("{objectId}") ? "where" : "operation"
        let what = op.updates > 0 ? "update" : op.deletes > 0 ? "delete" : "use"
        let why = count == 0 ? "the layer is empty" : "setup.sample is 0, so none of its \(count) features is drawn"
        return "\(field).\(key): layer \(op.layer) (\(layer.name)) has no existing feature to \(what) (\(why)), and nothing in the plan adds any, "
            + "so every iteration would be refused. Fix: add `setup: { seed: 100 }` to the scenario to add features first"
    }

    /// Which side of the relationship the operation must run on: a deep insert adds the parent (the origin); a relate of a
    /// one-to-one or one-to-many relationship changes the foreign key, which the destination holds.
    static func roleProblems(_ op: OperationSpec, _ relationship: RelationshipInfo, layer: LayerInfo, field: String) -> [String] {
        let manyToMany = relationship.cardinality == .manyToMany
        if op.kind == .deepInsert && relationship.role != .origin && !manyToMany {
            return [
                "\(field).layer: a deep insert adds the parent, but layer \(op.layer) (\(layer.name)) is the destination of relationship "
                    + "\(relationship.id) (\(relationship.name)). Fix: use `layer: \(relationship.relatedTableId)`, the origin"
            ]
        }
        if op.kind == .relate && relationship.role != .destination && !manyToMany {
            return [
                "\(field).layer: relate changes the foreign key, which the destination holds, but layer \(op.layer) (\(layer.name)) is the "
                    + "origin of relationship \(relationship.id) (\(relationship.name)). Fix: use `layer: \(relationship.relatedTableId)`"
            ]
        }
        return []
    }
}
