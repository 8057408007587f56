/// A template for new features: a name and prototype attributes.
public struct FeatureTemplate: Sendable, Hashable, Codable {
    /// The attribute values a feature made from the template starts with.
    public struct Prototype: Sendable, Hashable, Codable {
        /// The starting attribute values by field name.
        public var attributes: [String: JSONValue]
        package init(attributes: [String: JSONValue]) { self.attributes = attributes }
    }

    /// The template's name, as an editing app lists it.
    public var name: String
    /// What the template is for.
    public var description: String?
    /// The feature the template makes.
    public var prototype: Prototype
    /// The drawing tool an editing app offers, such as `esriFeatureEditToolPoint`.
    public var drawingTool: String?

    package init(name: String, description: String? = nil, attributes: [String: JSONValue], drawingTool: String? = nil) {
        self.name = name
        self.description = description
        self.prototype = Prototype(attributes: attributes)
        self.drawingTool = drawingTool
    }
}

/// The query capabilities a layer advertises under `advancedQueryCapabilities`.
public struct AdvancedQueryCapabilities: Sendable, Hashable, Codable {
    /// Whether queries page with `resultOffset` and `resultRecordCount`.
    public var supportsPagination: Bool?
    /// Whether queries sort with `orderByFields`.
    public var supportsOrderBy: Bool?
    /// Whether queries return distinct values.
    public var supportsDistinct: Bool?
    /// Whether a query can return the extent of its features.
    public var supportsReturningQueryExtent: Bool?
    /// Whether queries compute statistics (`outStatistics`).
    public var supportsStatistics: Bool?
    /// Whether the layer answers `queryAttachments`.
    public var supportsQueryAttachments: Bool?
    /// Whether related-records queries page.
    public var supportsQueryRelatedPagination: Bool?
    /// Whether related-records queries take where clauses and sorting.
    public var supportsAdvancedQueryRelated: Bool?
    /// Whether statistics queries page.
    public var supportsPaginationOnAggregatedQueries: Bool?
    /// Whether queries take a `resultType`.
    public var supportsQueryWithResultType: Bool?
    /// Whether queries take `maxRecordCountFactor`.
    public var supportsMaxRecordCountFactor: Bool?
    /// Whether queries take `cacheHint`.
    public var supportsQueryWithCacheHint: Bool?

    package init(
        supportsPagination: Bool? = true, supportsOrderBy: Bool? = true, supportsDistinct: Bool? = true,
        supportsReturningQueryExtent: Bool? = false, supportsStatistics: Bool? = true,
        supportsQueryAttachments: Bool? = true, supportsQueryRelatedPagination: Bool? = true,
        supportsAdvancedQueryRelated: Bool? = true, supportsPaginationOnAggregatedQueries: Bool? = false,
        supportsQueryWithResultType: Bool? = false
    ) {
        self.supportsPagination = supportsPagination
        self.supportsOrderBy = supportsOrderBy
        self.supportsDistinct = supportsDistinct
        self.supportsReturningQueryExtent = supportsReturningQueryExtent
        self.supportsStatistics = supportsStatistics
        self.supportsQueryAttachments = supportsQueryAttachments
        self.supportsQueryRelatedPagination = supportsQueryRelatedPagination
        self.supportsAdvancedQueryRelated = supportsAdvancedQueryRelated
        self.supportsPaginationOnAggregatedQueries = supportsPaginationOnAggregatedQueries
        self.supportsQueryWithResultType = supportsQueryWithResultType
    }
}

/// Metadata of a feature layer or table: `GET …/FeatureServer/<id>?f=json`.
///
/// Keys that real services may leave out are optional, so metadata from any ArcGIS Server or ArcGIS Online
/// version decodes.
public struct LayerInfo: Sendable, Hashable, Codable {
    /// The ArcGIS version the service reports, such as 11.1.
    public var currentVersion: Double?
    /// The layer or table id within its service.
    public var id: Int
    /// The layer's name.
    public var name: String
    /// `"Feature Layer"` or `"Table"`.
    public var type: String
    /// The layer's description.
    public var description: String?
    /// The field an app shows as a feature's label.
    public var displayField: String?
    /// The geometry type of the features; nil for a table.
    public var geometryType: GeometryType?
    /// Whether geometries carry z values.
    public var hasZ: Bool?
    /// Whether geometries carry m values.
    public var hasM: Bool?
    /// The extent of the layer's features.
    public var extent: Extent?
    /// The coordinate system of the layer's geometries.
    public var spatialReference: SpatialReference?
    /// The object ID field.
    public var objectIdField: String
    /// The GlobalID field, when the layer has one.
    public var globalIdField: String?
    /// The field whose value picks a feature's type (subtype), when the layer has types.
    public var typeIdField: String?
    /// The layer's fields.
    public var fields: [Field]
    /// Feature types (subtypes), each with its domains and templates.
    public var types: [FeatureSubtype]?
    /// Templates for new features, when the layer has no types.
    public var templates: [FeatureTemplate]?
    /// The relationships the layer takes part in.
    public var relationships: [RelationshipInfo]?
    /// Whether features can have attachments.
    public var hasAttachments: Bool?
    /// Which attachment properties the layer reports (`[{name, isEnabled}]`), when it has attachments.
    public var attachmentProperties: [AttachmentProperty]?
    /// The operations the layer allows, comma-separated, such as `Create,Delete,Query,Update,Editing`.
    public var capabilities: String?
    /// The most features one query answers; page beyond it.
    public var maxRecordCount: Int?
    /// The most features one query with `resultType=standard` answers.
    public var standardMaxRecordCount: Int?
    /// The most features one query with `resultType=tile` answers.
    public var tileMaxRecordCount: Int?
    /// Whether queries take `quantizationParameters`.
    public var supportsCoordinatesQuantization: Bool?
    /// The answer formats queries offer, such as `JSON`.
    public var supportedQueryFormats: String?
    /// Whether applyEdits honours `rollbackOnFailure=false`.
    public var supportsRollbackOnFailureParameter: Bool?
    /// Whether applyEdits takes `useGlobalIds=true`.
    public var supportsApplyEditsWithGlobalIds: Bool?
    /// Whether the layer has the query capabilities of ``advancedQueryCapabilities``.
    public var supportsAdvancedQueries: Bool?
    /// Whether queries compute statistics.
    public var supportsStatistics: Bool?
    /// Whether queries page.
    public var supportsPagination: Bool?
    /// Whether where clauses must be standardized SQL.
    public var useStandardizedQueries: Bool?
    /// Whether updates may change geometries.
    public var allowGeometryUpdates: Bool?
    /// Whether the layer has contingent values (attribute rules over field groups).
    public var hasContingentValuesDefinition: Bool?
    /// The query features the layer supports in detail.
    public var advancedQueryCapabilities: AdvancedQueryCapabilities?

    package init(
        id: Int, name: String, type: String, geometryType: GeometryType?, objectIdField: String,
        globalIdField: String?, fields: [Field], relationships: [RelationshipInfo] = [], hasAttachments: Bool = false,
        capabilities: String = "Create,Delete,Query,Update,Editing", maxRecordCount: Int = 2000
    ) {
        self.currentVersion = 11.1
        self.id = id
        self.name = name
        self.type = type
        self.geometryType = geometryType
        self.objectIdField = objectIdField
        self.globalIdField = globalIdField
        self.fields = fields
        self.relationships = relationships
        self.hasAttachments = hasAttachments
        self.capabilities = capabilities
        self.maxRecordCount = maxRecordCount
        self.standardMaxRecordCount = maxRecordCount
        self.supportedQueryFormats = "JSON"
        self.supportsRollbackOnFailureParameter = true
        self.supportsApplyEditsWithGlobalIds = globalIdField != nil
        self.supportsAdvancedQueries = true
        self.supportsStatistics = true
        self.supportsPagination = true
        self.useStandardizedQueries = true
        self.allowGeometryUpdates = true
        self.hasContingentValuesDefinition = false
        self.advancedQueryCapabilities = AdvancedQueryCapabilities()
        self.displayField = fields.first { $0.type == .string }?.name
        self.hasZ = false
        self.hasM = false
        if geometryType != nil { self.spatialReference = .wgs84 }
    }

    /// Whether this is a non-spatial table.
    public var isTable: Bool { type == "Table" }

    /// The field named `name`, compared case-insensitively.
    public func field(named name: String) -> Field? {
        // The exact spelling first: it is the usual case.
        if let exact = fields.first(where: { $0.name == name }) { return exact }
        return fields.first { $0.name.caseInsensitiveEquals(name) }
    }

    /// The relationship with the given id.
    public func relationship(id: Int) -> RelationshipInfo? {
        relationships?.first { $0.id == id }
    }
}

/// A layer or table entry in a service's `layers` or `tables` array.
public struct LayerSummary: Sendable, Hashable, Codable {
    /// The layer or table id.
    public var id: Int
    /// The layer's name.
    public var name: String
    /// `Feature Layer` or `Table`, when the service says.
    public var type: String?
    /// The geometry type of a feature layer.
    public var geometryType: GeometryType?

    package init(id: Int, name: String, type: String? = nil, geometryType: GeometryType? = nil) {
        self.id = id
        self.name = name
        self.type = type
        self.geometryType = geometryType
    }
}

/// Metadata of a feature service: `GET …/FeatureServer?f=json`.
public struct ServiceInfo: Sendable, Hashable, Codable {
    /// The ArcGIS version the service reports, such as 11.1.
    public var currentVersion: Double?
    /// The service's description.
    public var serviceDescription: String?
    /// Whether the data is versioned.
    public var hasVersionedData: Bool?
    /// The most features one query answers, service-wide.
    public var maxRecordCount: Int?
    /// The answer formats queries offer, such as `JSON`.
    public var supportedQueryFormats: String?
    /// The operations the service allows, comma-separated.
    public var capabilities: String?
    /// The coordinate system of the service's data.
    public var spatialReference: SpatialReference?
    /// The extent a map opens at.
    public var initialExtent: Extent?
    /// The extent of all the data.
    public var fullExtent: Extent?
    /// Whether updates may change geometries.
    public var allowGeometryUpdates: Bool?
    /// The map units, such as `esriDecimalDegrees`.
    public var units: String?
    /// Whether the service supports offline sync.
    public var syncEnabled: Bool?
    /// Whether applyEdits takes `useGlobalIds=true`.
    public var supportsApplyEditsWithGlobalIds: Bool?
    /// Whether the service lists its relationship classes under `…/relationships`.
    public var supportsRelationshipsResource: Bool?
    /// Whether the service answers `queryContingentValues`.
    public var supportsQueryContingentValues: Bool?
    /// `"JSON"` when `queryContingentValues` answers JSON.
    public var supportedContingentValuesFormats: String?
    /// 2 for the current JSON shape of contingent values.
    public var supportsContingentValuesJson: Int?
    /// The feature layers.
    public var layers: [LayerSummary]
    /// The non-spatial tables.
    public var tables: [LayerSummary]

    package init(
        serviceDescription: String, capabilities: String = "Create,Delete,Query,Update,Editing",
        maxRecordCount: Int = 2000, layers: [LayerSummary], tables: [LayerSummary]
    ) {
        self.currentVersion = 11.1
        self.serviceDescription = serviceDescription
        self.hasVersionedData = false
        self.maxRecordCount = maxRecordCount
        self.supportedQueryFormats = "JSON"
        self.capabilities = capabilities
        self.spatialReference = .wgs84
        self.allowGeometryUpdates = true
        self.units = "esriDecimalDegrees"
        self.syncEnabled = false
        self.supportsApplyEditsWithGlobalIds = true
        self.supportsRelationshipsResource = false
        self.supportsQueryContingentValues = false
        self.layers = layers
        self.tables = tables
    }

    private enum CodingKeys: String, CodingKey {
        case currentVersion, serviceDescription, hasVersionedData, maxRecordCount, supportedQueryFormats, capabilities,
            spatialReference, initialExtent, fullExtent, allowGeometryUpdates, units, syncEnabled,
            supportsApplyEditsWithGlobalIds, supportsRelationshipsResource, supportsQueryContingentValues,
            supportedContingentValuesFormats, supportsContingentValuesJson, layers, tables
    }

    /// Decodes service metadata; missing `layers` or `tables` read as empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        currentVersion = try c.decodeIfPresent(Double.self, forKey: .currentVersion)
        serviceDescription = try c.decodeIfPresent(String.self, forKey: .serviceDescription)
        hasVersionedData = try c.decodeIfPresent(Bool.self, forKey: .hasVersionedData)
        maxRecordCount = try c.decodeIfPresent(Int.self, forKey: .maxRecordCount)
        supportedQueryFormats = try c.decodeIfPresent(String.self, forKey: .supportedQueryFormats)
        capabilities = try c.decodeIfPresent(String.self, forKey: .capabilities)
        spatialReference = try c.decodeIfPresent(SpatialReference.self, forKey: .spatialReference)
        initialExtent = try c.decodeIfPresent(Extent.self, forKey: .initialExtent)
        fullExtent = try c.decodeIfPresent(Extent.self, forKey: .fullExtent)
        allowGeometryUpdates = try c.decodeIfPresent(Bool.self, forKey: .allowGeometryUpdates)
        units = try c.decodeIfPresent(String.self, forKey: .units)
        syncEnabled = try c.decodeIfPresent(Bool.self, forKey: .syncEnabled)
        supportsApplyEditsWithGlobalIds = try c.decodeIfPresent(Bool.self, forKey: .supportsApplyEditsWithGlobalIds)
        supportsRelationshipsResource = try c.decodeIfPresent(Bool.self, forKey: .supportsRelationshipsResource)
        supportsQueryContingentValues = try c.decodeIfPresent(Bool.self, forKey: .supportsQueryContingentValues)
        supportedContingentValuesFormats = try c.decodeIfPresent(String.self, forKey: .supportedContingentValuesFormats)
        supportsContingentValuesJson = try c.decodeIfPresent(Int.self, forKey: .supportsContingentValuesJson)
        layers = try c.decodeIfPresent([LayerSummary].self, forKey: .layers) ?? []
        tables = try c.decodeIfPresent([LayerSummary].self, forKey: .tables) ?? []
    }
}
