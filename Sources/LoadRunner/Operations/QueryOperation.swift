import FeatureModel
import FeatureServiceClient
import Foundation

/// `query`: a where clause (`{objectId}` replaced by an existing ID), optional random envelope, counts or IDs only,
/// and paging through every page when `pageSize` is set.
struct QueryOperation: LoadOperation {
    let settings: QuerySettings
    let environment: OperationEnvironment

    func perform(index: Int, sample: inout IterationSample) async {
        var random = SplitMix64(seed: environment.generator.seed &+ UInt64(truncatingIfNeeded: index) &* 0xD1B5_4A32_D192_ED03)
        var parameters = QueryParameters(whereClause: whereClause(random: &random))
        parameters.outFields = settings.outFields
        parameters.returnGeometry = settings.returnGeometry
        if let fraction = settings.envelope, let extent = environment.info.extent {
            parameters.envelope = Self.envelope(in: extent, fraction: fraction, random: &random)
            parameters.inSR = extent.spatialReference?.wkid
        }
        let table = environment.table
        do {
            if settings.returnCountOnly {
                _ = try await table.queryFeatureCount(parameters)
            } else if settings.returnIdsOnly {
                _ = try await table.queryObjectIds(parameters)
            } else if let pageSize = settings.pageSize {
                parameters.resultRecordCount = pageSize
                parameters.orderByFields = [environment.info.objectIdField]
                for try await _ in table.queryPages(parameters) {}
            } else {
                _ = try await table.client.query(
                    FeatureQuery(whereClause: parameters.whereClause, outFields: settings.outFields, returnGeometry: settings.returnGeometry))
            }
        } catch {
            guard !Task.isCancelled else { return }
            sample.fail(error, edits: 0)
        }
    }

    private func whereClause(random: inout SplitMix64) -> String {
        guard settings.whereClause.contains("{objectId}") else { return settings.whereClause }
        let objectId = environment.pool.sample(1).first ?? 1
        return settings.whereClause.replacingOccurrences(of: "{objectId}", with: String(objectId))
    }

    /// A random envelope inside `extent`, `fraction` of its width and height.
    static func envelope(in extent: Extent, fraction: Double, random: inout SplitMix64) -> Extent {
        let width = (extent.xmax - extent.xmin) * fraction
        let height = (extent.ymax - extent.ymin) * fraction
        let x = extent.xmin + random.nextUnit() * max(0, extent.xmax - extent.xmin - width)
        let y = extent.ymin + random.nextUnit() * max(0, extent.ymax - extent.ymin - height)
        return Extent(xmin: x, ymin: y, xmax: x + width, ymax: y + height, spatialReference: extent.spatialReference)
    }
}

/// `queryRelatedRecords` through one relationship for `batchSize` existing features, every page.
struct RelatedQueryOperation: LoadOperation {
    let settings: QueryRelatedRecordsSettings
    let environment: OperationEnvironment

    func perform(index: Int, sample: inout IterationSample) async {
        let ids = environment.pool.sample(settings.batchSize)
        guard !ids.isEmpty else {
            sample.fail("no existing feature to query related records of; seed some with `setup: { seed: N }`")
            return
        }
        let parameters = RelatedQueryParameters(
            relationshipId: settings.relationshipId, outFields: settings.outFields, returnGeometry: settings.returnGeometry,
            pageSize: settings.pageSize)
        do {
            _ = try await environment.table.queryRelated(objectIds: ids, parameters)
        } catch {
            guard !Task.isCancelled else { return }
            sample.fail(error, edits: 0)
        }
    }
}
