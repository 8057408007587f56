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
                if op.kind == .queryRelatedRecords {
                    let relationships = layer.relationships ?? []
                    if !relationships.contains(where: { $0.id == (op.relationship ?? 0) }) {
                        let ids = relationships.map { "\($0.id) (\($0.name))" }.joined(separator: ", ")
                        problems.append(
                            "\(field).relationship: layer \(op.layer) (\(layer.name)) has no relationship \(op.relationship ?? 0). Fix: "
                                + (ids.isEmpty ? "pick a layer that takes part in a relationship" : "use one of \(ids)"))
                    }
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
}
