package import FeatureModel

/// A feature service the local server can host: its name, its layers and tables (metadata as clients see it),
/// and the rows a fresh database starts with.
///
/// Read from a dataset file under `Scenarios/datasets/` by ``DatasetFile`` (see its documentation for the
/// format), or taken from the built-in copies of those files. Layer metadata is the wire ``LayerInfo`` itself:
/// what the server stores and validates is exactly what it advertises.
///
/// Rules the store relies on (checked when a file is read): layer ids are unique; each layer has an
/// `esriFieldTypeOID` field named by `objectIdField`; a relationship with the same `id` appears on both sides
/// (origin and destination).
package struct ServiceDefinition: Sendable, Hashable, Codable {
    /// The service name in URLs: `…/rest/services/<name>/FeatureServer`.
    package var name: String
    /// The `serviceDescription` of the service document.
    package var serviceDescription: String
    /// Feature layers and tables, in id order.
    package var layers: [LayerDefinition]
    /// Most features one query returns; nil: the server's setting. The smaller of the two applies.
    package var maxRecordCount: Int?
    /// The service `capabilities`; nil: `Create,Delete,Query,Update,Editing`.
    package var capabilities: String?
    /// The service spatial reference; nil: WGS 84.
    package var spatialReference: SpatialReference?
    /// The service extent; nil: the union of the layer extents.
    package var extent: Extent?

    /// A service definition.
    package init(
        name: String, serviceDescription: String, layers: [LayerDefinition], maxRecordCount: Int? = nil, capabilities: String? = nil,
        spatialReference: SpatialReference? = nil, extent: Extent? = nil
    ) {
        self.name = name
        self.serviceDescription = serviceDescription
        self.layers = layers
        self.maxRecordCount = maxRecordCount
        self.capabilities = capabilities
        self.spatialReference = spatialReference
        self.extent = extent
    }

    /// The layer or table with `id`.
    package func layer(id: Int) -> LayerDefinition? {
        layers.first { $0.info.id == id }
    }

    /// The datasets built into the server, by name: copies of the files in `Scenarios/datasets/`, so the
    /// binary serves them from any directory.
    package static let builtIn: [ServiceDefinition] = BuiltInDatasets.definitions

    /// The built-in dataset called `name` (case-insensitive), if any.
    package static func builtIn(named name: String) -> ServiceDefinition? {
        builtIn.first { $0.name.lowercased() == name.lowercased() }
    }
}

/// One layer or table of a ``ServiceDefinition``: its metadata, its seed rows, its contingent values and how to
/// generate more rows.
package struct LayerDefinition: Sendable, Hashable, Codable {
    /// The layer metadata served at `…/FeatureServer/<id>`.
    package var info: LayerInfo
    /// Rows inserted when the database is created. Attributes by field name; GlobalIDs, if given, are kept.
    package var seedRows: [Feature]
    /// The layer's contingent values (field groups), served at `…/<id>/contingentValues`; nil when it has none.
    package var contingentValues: [ContingentFieldGroup]?
    /// How many rows to generate after the seed rows, and from which seed; nil: none.
    package var generator: RowGeneratorSettings?

    /// A layer definition with optional seed rows.
    package init(
        info: LayerInfo, seedRows: [Feature] = [], contingentValues: [ContingentFieldGroup]? = nil, generator: RowGeneratorSettings? = nil
    ) {
        self.info = info
        self.seedRows = seedRows
        self.contingentValues = contingentValues
        self.generator = generator
    }
}

/// The `generator` of a layer in a dataset file: `{"rows": 100, "seed": 7}`.
package struct RowGeneratorSettings: Sendable, Hashable, Codable {
    /// Rows generated when the database is created (`featureload serve --rows N` overrides it).
    package var rows: Int
    /// The seed: the same seed and row count give the same rows.
    package var seed: UInt64

    /// Settings for `rows` generated rows from `seed`.
    package init(rows: Int, seed: UInt64) {
        self.rows = rows
        self.seed = seed
    }
}
