/// A template for new features: a name and prototype attributes.
public struct FeatureTemplate: Sendable, Hashable, Codable {
    public struct Prototype: Sendable, Hashable, Codable {
        public var attributes: [String: JSONValue]
        public init(attributes: [String: JSONValue]) { self.attributes = attributes }
    }

    public var name: String
    public var description: String?
    public var prototype: Prototype
    public var drawingTool: String?

    public init(name: String, description: String? = nil, attributes: [String: JSONValue], drawingTool: String? = nil) {
        self.name = name
        self.description = description
        self.prototype = Prototype(attributes: attributes)
        self.drawingTool = drawingTool
    }
}

/// The query capabilities a layer advertises under `advancedQueryCapabilities`.
public struct AdvancedQueryCapabilities: Sendable, Hashable, Codable {
    public var supportsPagination: Bool?
    public var supportsOrderBy: Bool?
    public var supportsDistinct: Bool?
    public var supportsReturningQueryExtent: Bool?
    public var supportsStatistics: Bool?
    public var supportsQueryAttachments: Bool?
    public var supportsQueryRelatedPagination: Bool?
    public var supportsAdvancedQueryRelated: Bool?
    public var supportsPaginationOnAggregatedQueries: Bool?
    public var supportsQueryWithResultType: Bool?

    public init(
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
    public var currentVersion: Double?
    public var id: Int
    public var name: String
    /// `"Feature Layer"` or `"Table"`.
    public var type: String
    public var description: String?
    public var displayField: String?
    public var geometryType: GeometryType?
    public var hasZ: Bool?
    public var hasM: Bool?
    public var extent: Extent?
    public var spatialReference: SpatialReference?
    public var objectIdField: String
    public var globalIdField: String?
    public var typeIdField: String?
    public var fields: [Field]
    /// Feature types (subtypes), each with its domains and templates.
    public var types: [FeatureSubtype]?
    public var templates: [FeatureTemplate]?
    public var relationships: [RelationshipInfo]?
    public var hasAttachments: Bool?
    /// Which attachment properties the layer reports (`[{name, isEnabled}]`), when it has attachments.
    public var attachmentProperties: [AttachmentProperty]?
    public var capabilities: String?
    public var maxRecordCount: Int?
    public var standardMaxRecordCount: Int?
    public var supportedQueryFormats: String?
    public var supportsRollbackOnFailureParameter: Bool?
    public var supportsApplyEditsWithGlobalIds: Bool?
    public var supportsAdvancedQueries: Bool?
    public var supportsStatistics: Bool?
    public var supportsPagination: Bool?
    public var useStandardizedQueries: Bool?
    public var allowGeometryUpdates: Bool?
    public var hasContingentValuesDefinition: Bool?
    public var advancedQueryCapabilities: AdvancedQueryCapabilities?

    public init(
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
    public var id: Int
    public var name: String
    public var type: String?
    public var geometryType: GeometryType?

    public init(id: Int, name: String, type: String? = nil, geometryType: GeometryType? = nil) {
        self.id = id
        self.name = name
        self.type = type
        self.geometryType = geometryType
    }
}

/// Metadata of a feature service: `GET …/FeatureServer?f=json`.
public struct ServiceInfo: Sendable, Hashable, Codable {
    public var currentVersion: Double?
    public var serviceDescription: String?
    public var hasVersionedData: Bool?
    public var maxRecordCount: Int?
    public var supportedQueryFormats: String?
    public var capabilities: String?
    public var spatialReference: SpatialReference?
    public var initialExtent: Extent?
    public var fullExtent: Extent?
    public var allowGeometryUpdates: Bool?
    public var units: String?
    public var syncEnabled: Bool?
    public var supportsApplyEditsWithGlobalIds: Bool?
    public var supportsRelationshipsResource: Bool?
    public var supportsQueryContingentValues: Bool?
    /// `"JSON"` when `queryContingentValues` answers JSON.
    public var supportedContingentValuesFormats: String?
    /// 2 for the current JSON shape of contingent values.
    public var supportsContingentValuesJson: Int?
    public var layers: [LayerSummary]
    public var tables: [LayerSummary]

    public init(
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
