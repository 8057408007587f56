import FeatureModel
import FeatureServiceClient

/// `deepInsert`: a new parent, `children` new related records keyed to its client GlobalID, and `attachments`
/// files attached to it, all in one service-level applyEdits: all or nothing.
///
/// Built the way an app on the ArcGIS Maps SDKs builds it: each iteration takes fresh tables (their own pending
/// edits), makes the parent, makes each child related to it, attaches the files, and applies both tables at once.
/// The parent's object ID and GlobalID, and each child's object ID, are recorded for verification; the children and
/// attachments count as edits.
struct DeepInsertOperation: LoadOperation {
    let spec: OperationSpec
    let settings: DeepInsertSettings
    let environment: OperationEnvironment
    /// The related table the children go to, and a generator of its records.
    let childTable: Int
    let childGenerator: FeatureGenerator

    func perform(index: Int, sample: inout IterationSample) async {
        let relationship = settings.relationshipId
        let edits = settings.editsPerIteration
        var sending = false
        do {
            let parents = try await environment.service.table(id: spec.layer)
            let children = try await environment.service.table(id: childTable)
            var generated = environment.generator.feature(at: index)
            if let shaper = environment.shaper {
                // The parent fits its layer's contingent values, for its subtype; one the SDK would still refuse is
                // not sent, nor are its children and files.
                var random = ValidityShaper.random(seed: environment.generator.seed, index: index)
                generated = shaper.respecting(generated, random: &random)
                if let reason = shaper.refusal(generated) {
                    sample.editsInvalid += edits
                    sample.fail("not sent: " + reason)
                    return
                }
            }
            let parent = await parents.add(parents.makeFeature(attributes: generated.attributes, geometry: generated.geometry))
            for offset in 0..<settings.children {
                let record = childGenerator.feature(at: index &* 1024 &+ offset)
                let child = try await children.makeFeature(
                    relatedTo: parent, relationshipId: relationship, attributes: record.attributes, geometry: record.geometry)
                await children.add(child)
            }
            let files = environment.attachmentFiles
            for offset in 0..<settings.attachments where !files.isEmpty {
                try await parents.addAttachment(
                    to: parent, file: files[(index &+ offset) % files.count], contentType: settings.files.contentType,
                    options: AttachmentUploadOptions(threshold: settings.uploadThreshold))
            }
            sending = true
            let results = try await environment.service.applyEditsAndAttachments(
                tables: [parents, children], rollbackOnFailure: settings.rollbackOnFailure)
            // Many-to-many link rows ride along in the relationship table; the edits counted are parent and children.
            for result in results.features where result.tableId == spec.layer || result.tableId == childTable {
                guard result.isApplied else {
                    sample.fail(result.error)
                    if result.status == .outcomeUnknown { sample.editsUnknown += 1 }
                    continue
                }
                sample.editsApplied += 1
                if result.tableId == spec.layer, result.kind == .add, let objectId = result.objectId {
                    sample.addedObjectIds.append(objectId)
                    if let globalId = result.globalId { sample.addedGlobalIds.append(globalId) }
                    environment.pool.add([objectId])
                } else if result.tableId == childTable, result.kind == .add, let objectId = result.objectId {
                    // Verified like the parents: each child reported added must be in its table once.
                    sample.addedToOtherLayers[childTable, default: []].append(objectId)
                }
            }
            for attachment in results.attachments {
                if attachment.isApplied { sample.editsApplied += 1 } else { sample.fail(attachment.error) }
            }
            let answered = results.features.filter { $0.tableId == spec.layer || $0.tableId == childTable }.count + results.attachments.count
            if answered < edits {
                sample.editsFailed += edits - answered
                sample.fail("the service answered for \(answered) of \(edits) edits")
            }
        } catch {
            // Cut off while making the tables and files, nothing was sent; while applying, all of it may be applied.
            guard !Task.isCancelled else { return sending ? sample.cutOff(edits: edits) : () }
            sample.fail(error, edits: edits)
        }
    }
}
