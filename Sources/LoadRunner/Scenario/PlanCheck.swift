public import FeatureModel

/// Checks a plan against the service's metadata and lists every problem at once. Pure.
///
/// It catches before any load what would otherwise fail every iteration: a layer the service lacks, client
/// GlobalIDs on a layer without a GlobalID field, a relationship id the layer does not have, attachments on a layer
/// without them, an envelope on a table.
public enum PlanCheck {
    public static func check(_ plan: ScenarioPlan, layers: [Int: LayerInfo]) -> [String] {
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
            }
        }
        return problems
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
