import FeatureModel
import FeatureServiceClient
import Foundation

/// `addAttachment` of a generated file to an existing feature (large files through `uploads` in parallel parts).
struct AttachmentOperation: LoadOperation {
    let settings: AddAttachmentSettings
    let environment: OperationEnvironment

    func perform(index: Int, sample: inout IterationSample) async {
        guard let objectId = environment.pool.sample(1).first else {
            sample.fail("no existing feature to attach to or query; seed some with `setup: { seed: N }`")
            sample.editsFailed += 1
            return
        }
        let files = environment.attachmentFiles
        guard !files.isEmpty else { return }
        let file = files[index % files.count]
        do {
            let result = try await environment.layer.addAttachment(
                objectId: objectId, file: file, contentType: settings.files.contentType,
                options: AttachmentUploadOptions(threshold: settings.uploadThreshold))
            if result.success { sample.editsApplied += 1 } else { sample.fail(result.error) }
        } catch {
            guard !Task.isCancelled else { return sample.cutOff(edits: 1) }
            sample.fail(error, edits: 1)
        }
    }

    /// Writes the attachment files an operation (labelled `label`) uploads into `directory`: one file for a fixed
    /// size, eight spread evenly over a range (seeded bytes).
    static func makeFiles(_ files: AttachmentFiles, label: String, in directory: String, seed: UInt64) throws -> [String] {
        let (low, high) = (files.size.min, files.size.max)
        let sizes: [Int64] = low == high ? [low] : (0..<8).map { low + (high - low) * Int64($0) / 7 }
        var random = SplitMix64(seed: seed)
        let type = files.contentType
        let ext = type.contains("png") ? "png" : type.contains("pdf") ? "pdf" : type.contains("jpeg") ? "jpg" : "bin"
        return try sizes.enumerated().map { offset, size in
            let path = "\(directory)/\(label)-\(offset).\(ext)"
            FileManager.default.createFile(atPath: path, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            var remaining = size
            while remaining > 0 {
                let chunk = Int(min(remaining, 1 << 20))
                var bytes = [UInt8](repeating: 0, count: chunk)
                for i in stride(from: 0, to: chunk, by: 8) {
                    var word = random.next()
                    for j in i..<min(i + 8, chunk) {
                        bytes[j] = UInt8(truncatingIfNeeded: word)
                        word >>= 8
                    }
                }
                try handle.write(contentsOf: bytes)
                remaining -= Int64(chunk)
            }
            return path
        }
    }
}

/// `queryAttachments` for `batchSize` existing features, optionally downloading every attachment listed.
struct AttachmentQueryOperation: LoadOperation {
    let settings: QueryAttachmentsSettings
    let environment: OperationEnvironment

    func perform(index: Int, sample: inout IterationSample) async {
        let ids = environment.pool.sample(settings.batchSize)
        guard !ids.isEmpty else {
            sample.fail("no existing feature to attach to or query; seed some with `setup: { seed: N }`")
            return
        }
        let layer = environment.layer
        do {
            let answer = try await layer.queryAttachments(objectIds: ids)
            guard settings.download else { return }
            let target = FileManager.default.temporaryDirectory.appendingPathComponent("featureload-download-\(index)").path
            defer { try? FileManager.default.removeItem(atPath: target) }
            for group in answer.attachmentGroups {
                for info in group.attachmentInfos ?? [] {
                    _ = try await layer.downloadAttachment(objectId: group.parentObjectId, attachmentId: info.id, to: target)
                }
            }
        } catch {
            guard !Task.isCancelled else { return }
            sample.fail(error, edits: 0)
        }
    }
}
