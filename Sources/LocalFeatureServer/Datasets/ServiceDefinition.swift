public import FeatureModel

/// A feature service the local server can host: its name, its layers and tables (metadata as clients see it),
/// and the rows a fresh database starts with.
///
/// A plain value, `Codable` so that later datasets can be read from files under `Scenarios/datasets/`. Layer
/// metadata is the wire ``LayerInfo`` itself: what the server stores and validates is exactly what it advertises.
///
/// Rules the store relies on: layer ids are unique; each layer has an `esriFieldTypeOID` field named by
/// `objectIdField`; a relationship with the same `id` appears on both sides (origin and destination).
public struct ServiceDefinition: Sendable, Hashable, Codable {
    /// The service name in URLs: `…/rest/services/<name>/FeatureServer`.
    public var name: String
    /// The `serviceDescription` of the service document.
    public var serviceDescription: String
    /// Feature layers and tables, in id order.
    public var layers: [LayerDefinition]

    /// A service definition.
    public init(name: String, serviceDescription: String, layers: [LayerDefinition]) {
        self.name = name
        self.serviceDescription = serviceDescription
        self.layers = layers
    }

    /// The layer or table with `id`.
    public func layer(id: Int) -> LayerDefinition? {
        layers.first { $0.info.id == id }
    }

    /// The datasets built into the server, by name.
    public static let builtIn: [ServiceDefinition] = [ParksDataset.definition]

    /// The built-in dataset called `name` (case-insensitive), if any.
    public static func builtIn(named name: String) -> ServiceDefinition? {
        builtIn.first { $0.name.lowercased() == name.lowercased() }
    }
}

/// One layer or table of a ``ServiceDefinition``: its metadata and its seed rows.
public struct LayerDefinition: Sendable, Hashable, Codable {
    /// The layer metadata served at `…/FeatureServer/<id>`.
    public var info: LayerInfo
    /// Rows inserted when the database is created. Attributes by field name; GlobalIDs, if given, are kept.
    public var seedRows: [Feature]

    /// A layer definition with optional seed rows.
    public init(info: LayerInfo, seedRows: [Feature] = []) {
        self.info = info
        self.seedRows = seedRows
    }
}
