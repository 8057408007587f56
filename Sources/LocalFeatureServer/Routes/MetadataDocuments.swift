import FeatureModel

/// The metadata documents of a hosted service, built from its ``ServiceDefinition``.
enum MetadataDocuments {
    /// The service document (`…/FeatureServer`): layers, tables, capabilities, extents.
    static func serviceInfo(_ definition: ServiceDefinition, limits: RecordLimits) -> ServiceInfo {
        let infos = definition.layers.map(\.info)
        var info = ServiceInfo(
            serviceDescription: definition.serviceDescription,
            capabilities: definition.capabilities ?? "Create,Delete,Query,Update,Editing",
            maxRecordCount: limits.maxRecordCount,
            layers: infos.filter { !$0.isTable }.map { LayerSummary(id: $0.id, name: $0.name, type: $0.type, geometryType: $0.geometryType) },
            tables: infos.filter(\.isTable).map { LayerSummary(id: $0.id, name: $0.name, type: $0.type) }
        )
        info.spatialReference = definition.spatialReference ?? .wgs84
        info.supportsRelationshipsResource = true
        info.supportsQueryContingentValues = true
        info.supportedContingentValuesFormats = "JSON"
        info.supportsContingentValuesJson = 2
        let extents = infos.compactMap(\.extent)
        if let extent = definition.extent {
            info.initialExtent = extent
            info.fullExtent = extent
        } else if let first = extents.first {
            let union = extents.dropFirst().reduce(first) { result, extent in
                Extent(
                    xmin: min(result.xmin, extent.xmin),
                    ymin: min(result.ymin, extent.ymin),
                    xmax: max(result.xmax, extent.xmax),
                    ymax: max(result.ymax, extent.ymax),
                    spatialReference: result.spatialReference
                )
            }
            info.initialExtent = union
            info.fullExtent = union
        }
        return info
    }

    /// The layer or table document (`…/FeatureServer/<id>`), with the server's record limits.
    ///
    /// Query capabilities this server does not implement yet are switched off whatever the dataset says, so
    /// clients take the paths that work (esridump pages with `resultOffset` instead of `outStatistics`).
    /// Attachment queries are on for layers with attachments. Statistics, distinct values and query extents are on. Related-record paging, counts and order
    /// (`supportsQueryRelatedPagination`, `supportsAdvancedQueryRelated`) are on.
    /// Tiles (`resultType`, `maxRecordCountFactor`, `cacheHint`) and `quantizationParameters` are on.
    static func layerInfo(_ layer: LayerDefinition, limits: RecordLimits) -> LayerInfo {
        var info = layer.info
        info.maxRecordCount = limits.maxRecordCount
        info.standardMaxRecordCount = limits.standardMaxRecordCount
        info.tileMaxRecordCount = limits.tileMaxRecordCount
        info.supportsCoordinatesQuantization = true
        info.supportedQueryFormats = "JSON, geoJSON, PBF"
        info.supportsPagination = true
        info.supportsStatistics = true
        var capabilities = info.advancedQueryCapabilities ?? AdvancedQueryCapabilities()
        capabilities.supportsPagination = true
        capabilities.supportsOrderBy = true
        capabilities.supportsStatistics = true
        capabilities.supportsDistinct = true
        capabilities.supportsReturningQueryExtent = true
        capabilities.supportsQueryAttachments = layer.info.hasAttachments == true
        capabilities.supportsQueryRelatedPagination = true
        capabilities.supportsAdvancedQueryRelated = true
        capabilities.supportsPaginationOnAggregatedQueries = false
        capabilities.supportsQueryWithResultType = true
        capabilities.supportsMaxRecordCountFactor = true
        capabilities.supportsQueryWithCacheHint = true
        info.advancedQueryCapabilities = capabilities
        info.hasContingentValuesDefinition = layer.contingentValues?.isEmpty == false
        info.attachmentProperties = info.hasAttachments == true ? AttachmentProperty.standard : nil
        return info
    }

    /// The `…/FeatureServer/relationships` document: one entry per relationship class, from its origin side.
    static func relationships(_ definition: ServiceDefinition) -> RelationshipsResponse {
        var classes: [RelationshipClass] = []
        for layer in definition.layers.map(\.info) {
            for origin in layer.relationships ?? [] where origin.role == .origin {
                guard let destinationLayer = definition.layer(id: origin.relatedTableId)?.info,
                    let destination = destinationLayer.relationship(id: origin.id)
                else { continue }
                let attributed = origin.cardinality == .manyToMany
                classes.append(
                    RelationshipClass(
                        id: origin.id, name: origin.name, originLayerId: layer.id, originPrimaryKey: origin.keyField,
                        destinationLayerId: destinationLayer.id,
                        originForeignKey: attributed ? (origin.keyFieldInRelationshipTable ?? "") : destination.keyField,
                        cardinality: origin.cardinality, composite: origin.composite, attributed: attributed,
                        destinationPrimaryKey: attributed ? destination.keyField : nil,
                        destinationForeignKey: attributed ? destination.keyFieldInRelationshipTable : nil,
                        relationshipTableId: attributed ? origin.relationshipTableId : nil,
                        forwardPathLabel: destinationLayer.name, backwardPathLabel: layer.name
                    ))
            }
        }
        return RelationshipsResponse(relationships: classes.sorted { $0.id < $1.id })
    }

    /// The contingent values of `layers`: the layer resource's shape (`fieldGroups`) for one layer, or the
    /// `queryContingentValues` shape (`layers: [{layerID, fieldGroups}]`) at service level.
    ///
    /// Codes of string-coded domains are written as indexes into that domain's `stringDicts` entries (the domain's
    /// codes, in order); numeric codes as themselves.
    static func contingentValues(of layers: [LayerDefinition], serviceLevel: Bool) -> ContingentValuesResponse {
        var dictionaries: [String: [String]] = [:]
        var perLayer: [ContingentValuesResponse.LayerGroups] = []
        for layer in layers {
            var groups: [ContingentValuesResponse.FieldGroup] = []
            for group in layer.contingentValues ?? [] {
                let fields = group.fields.map { layer.info.field(named: $0) }
                var domains: [String: String] = [:]
                for (name, field) in zip(group.fields, fields) {
                    guard let domain = field?.domain else { continue }
                    domains[name] = domain.name
                    if case .codedValue(let domainName, let values) = domain, values.allSatisfy({ $0.code.stringValue != nil }) {
                        dictionaries[domainName] = values.compactMap(\.code.stringValue)
                    }
                }
                var contingencies: [ContingentValuesResponse.Contingency] = []
                for (index, contingency) in group.contingencies.enumerated() {
                    var types: [Int] = []
                    var values: [JSONValue] = []
                    for (position, value) in contingency.enumerated() {
                        switch value {
                        case .any: types.append(1)
                        case .null: types.append(2)
                        case .code(let code):
                            types.append(3)
                            if let text = code.stringValue, let domain = fields[position]?.domain?.name,
                                let entry = dictionaries[domain]?.firstIndex(of: text)
                            {
                                values.append(.int(Int64(entry)))
                            } else {
                                values.append(code)
                            }
                        case .range(let low, let high):
                            types.append(4)
                            values += [.double(low), .double(high)]
                        }
                    }
                    contingencies.append(.init(id: index + 1, types: types, values: values))
                }
                groups.append(
                    .init(name: group.name, restrictive: group.restrictive, fields: group.fields, domains: domains, contingentValues: contingencies))
            }
            perLayer.append(.init(layerID: layer.info.id, fieldGroups: groups))
        }
        let stringDicts = dictionaries.keys.sorted().map { ContingentValuesResponse.StringDictionary(domain: $0, entries: dictionaries[$0]!) }
        let definition =
            serviceLevel
            ? ContingentValuesResponse.Definition(layers: perLayer)
            : ContingentValuesResponse.Definition(fieldGroups: perLayer.first?.fieldGroups ?? [])
        return ContingentValuesResponse(stringDicts: stringDicts, contingentValuesDefinition: definition)
    }

    /// The services directory.
    static func catalog(_ services: [ServiceDefinition]) -> ServiceCatalog {
        ServiceCatalog(services: services.map { ServiceCatalog.Service(name: $0.name, type: "FeatureServer") })
    }
}
