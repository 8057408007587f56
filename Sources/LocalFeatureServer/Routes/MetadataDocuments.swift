import FeatureModel

/// The metadata documents of a hosted service, built from its ``ServiceDefinition``.
enum MetadataDocuments {
    /// The service document (`…/FeatureServer`): layers, tables, capabilities, extents.
    static func serviceInfo(_ definition: ServiceDefinition, maxRecordCount: Int) -> ServiceInfo {
        let infos = definition.layers.map(\.info)
        var info = ServiceInfo(
            serviceDescription: definition.serviceDescription,
            maxRecordCount: maxRecordCount,
            layers: infos.filter { !$0.isTable }.map { LayerSummary(id: $0.id, name: $0.name, type: $0.type, geometryType: $0.geometryType) },
            tables: infos.filter(\.isTable).map { LayerSummary(id: $0.id, name: $0.name, type: $0.type) }
        )
        let extents = infos.compactMap(\.extent)
        if let first = extents.first {
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

    /// The layer or table document (`…/FeatureServer/<id>`), with the server's `maxRecordCount`.
    ///
    /// Query capabilities this server does not implement yet are switched off whatever the dataset says, so
    /// clients take the paths that work (esridump pages with `resultOffset` instead of `outStatistics`):
    /// statistics, distinct values, query extent, attachment queries and related-record paging.
    static func layerInfo(_ layer: LayerDefinition, maxRecordCount: Int) -> LayerInfo {
        var info = layer.info
        info.maxRecordCount = maxRecordCount
        info.standardMaxRecordCount = maxRecordCount
        info.supportsPagination = true
        info.supportsStatistics = false
        var capabilities = info.advancedQueryCapabilities ?? AdvancedQueryCapabilities()
        capabilities.supportsPagination = true
        capabilities.supportsOrderBy = true
        capabilities.supportsStatistics = false
        capabilities.supportsDistinct = false
        capabilities.supportsReturningQueryExtent = false
        capabilities.supportsQueryAttachments = false
        capabilities.supportsQueryRelatedPagination = false
        capabilities.supportsAdvancedQueryRelated = false
        capabilities.supportsPaginationOnAggregatedQueries = false
        capabilities.supportsQueryWithResultType = false
        info.advancedQueryCapabilities = capabilities
        return info
    }

    /// The services directory.
    static func catalog(_ services: [ServiceDefinition]) -> ServiceCatalog {
        ServiceCatalog(services: services.map { ServiceCatalog.Service(name: $0.name, type: "FeatureServer") })
    }
}
