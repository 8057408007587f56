import FeatureModel
import FeatureServiceClient

/// Checks by query that the service holds the scenario's own features: each reported add present once, each
/// client GlobalID once (more means a duplicated add), unknown outcomes resolved by GlobalID, deleted features gone.
/// Other writers on a live layer do not fail it. A query that fails becomes a note, never a lost report.
struct Verifier<C: Clock<Duration>>: Sendable {
    let service: FeatureService
    let layers: [Int: LayerInfo]
    let policy: RetryPolicy
    let clock: C

    func verify(_ spec: ScenarioSpec, recorded: ScenarioAccumulator, countsBefore: [Int: Int]) async -> ScenarioVerification {
        let totals = recorded.totals
        var verification = ScenarioVerification(
            reportedAdded: 0, foundByObjectId: 0, duplicateObjectIds: 0, editsInFailedRequests: totals.editsUnknown)
        do {
            for (layerId, ids) in recorded.ids.sorted(by: { $0.key < $1.key }) {
                try await check(layerId, ids, countBefore: countsBefore[layerId], into: &verification)
            }
            for (layerId, before) in countsBefore where recorded.ids[layerId] == nil {
                try await check(layerId, ScenarioAccumulator.LayerIds(), countBefore: before, into: &verification)
            }
        } catch {
            verification.notes.append("verification could not finish: \(error)")
        }
        verification.passed = verification.notes.isEmpty
        return verification
    }

    private func check(_ layerId: Int, _ ids: ScenarioAccumulator.LayerIds, countBefore: Int?, into v: inout ScenarioVerification) async throws {
        let layer = service.layer(id: layerId)
        let deleted = Set(ids.deletedObjectIds)
        let unique = Set(ids.addedObjectIds)
        let kept = unique.subtracting(deleted).sorted()
        v.reportedAdded += ids.addedObjectIds.count
        let duplicates = ids.addedObjectIds.count - unique.count
        v.duplicateObjectIds += duplicates
        if duplicates > 0 { v.notes.append("layer \(layerId): \(duplicates) object IDs were reported for more than one add") }
        let found = try await count(layer, objectIds: kept)
        v.foundByObjectId += found + (unique.count - kept.count)
        if found != kept.count { v.notes.append("layer \(layerId): \(kept.count - found) reported adds are missing from the service") }
        if !deleted.isEmpty {
            let still = try await count(layer, objectIds: deleted.sorted())
            v.deletedStillPresent = (v.deletedStillPresent ?? 0) + still
            if still > 0 { v.notes.append("layer \(layerId): \(still) deleted features are still there") }
        }
        if let field = layers[layerId]?.globalIdField {
            if !ids.addedGlobalIds.isEmpty {
                let foundGlobal = try await count(layer, field: field, globalIds: ids.addedGlobalIds)
                let expected = Set(ids.addedGlobalIds).count
                v.globalIdsReported = (v.globalIdsReported ?? 0) + ids.addedGlobalIds.count
                v.globalIdsFound = (v.globalIdsFound ?? 0) + foundGlobal
                if foundGlobal > Set(ids.addedGlobalIds).count {
                    v.notes.append(
                        "layer \(layerId): \(foundGlobal - Set(ids.addedGlobalIds).count) features share a client GlobalID (duplicated adds)")
                } else if deleted.isEmpty && foundGlobal < expected {
                    v.notes.append("layer \(layerId): \(expected - foundGlobal) added GlobalIDs are missing")
                }
            }
            if !ids.unknownGlobalIds.isEmpty {
                let applied = try await count(layer, field: field, globalIds: ids.unknownGlobalIds)
                v.unknownOutcomes = (v.unknownOutcomes ?? 0) + ids.unknownGlobalIds.count
                v.unknownFoundApplied = (v.unknownFoundApplied ?? 0) + applied
            }
        }
        if let countBefore {
            let after = try await policy.retrying(on: clock) { try await layer.count() }
            v.layerCountBefore = (v.layerCountBefore ?? 0) + countBefore
            v.layerCountAfter = (v.layerCountAfter ?? 0) + after
            let expected = unique.count - deleted.count
            if after - countBefore != expected {
                v.notes.append(
                    "layer \(layerId) grew by \(after - countBefore) rows but \(expected) were expected from the reported adds and deletes"
                        + (v.editsInFailedRequests > 0 ? " (\(v.editsInFailedRequests) edits had an unknown outcome and may have been applied)" : "")
                        + "; another writer during the run also changes the count")
            }
        }
    }

    private func count(_ layer: FeatureLayerClient, objectIds: [Int64]) async throws -> Int {
        var total = 0
        var start = 0
        while start < objectIds.count {
            let chunk = Array(objectIds[start..<min(start + 500, objectIds.count)])
            total += try await policy.retrying(on: clock) { try await layer.count(objectIds: chunk) }
            start += chunk.count
        }
        return total
    }

    private func count(_ layer: FeatureLayerClient, field: String, globalIds: [String]) async throws -> Int {
        let unique = Array(Set(globalIds)).sorted()
        var total = 0
        var start = 0
        while start < unique.count {
            let chunk = unique[start..<min(start + 200, unique.count)]
            let clause = "\(field) IN (" + chunk.map { "'\($0)'" }.joined(separator: ",") + ")"
            total += try await policy.retrying(on: clock) { try await layer.count(where: clause) }
            start += chunk.count
        }
        return total
    }
}
