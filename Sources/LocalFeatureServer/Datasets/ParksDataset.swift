import FeatureModel

/// The built-in `parks` service (`Scenarios/datasets/parks.json`): layer 0 "National Parks" (points) and table 1
/// "Species", related one-to-many through a composite relationship (deleting a park deletes its species).
///
/// ```
/// National Parks (0)  GlobalID ──1:M, composite──▶ park_guid  Species (1)
/// ```
enum ParksDataset {
    static let definition: ServiceDefinition = ServiceDefinition.builtIn(named: "parks")!

    static var parksLayer: LayerInfo { definition.layers[0].info }
    static var speciesTable: LayerInfo { definition.layers[1].info }
    static var parkCategory: Domain? { parksLayer.field(named: "category")?.domain }

    /// The seeded parks' GlobalIDs, in seed order (species rows point at them).
    static let parkGlobalIDs: [String] = definition.layers[0].seedRows.compactMap { $0.attributes["GlobalID"]?.stringValue }
}
