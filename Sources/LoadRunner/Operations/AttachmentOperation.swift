import FeatureModel
import FeatureServiceClient
import Foundation

/// `addAttachment` of a generated file to an existing feature (large files through `uploads` in parallel parts),
/// and `queryAttachments` for existing features, optionally downloading every attachment listed.
struct AttachmentOperation: LoadOperation {
    let spec: OperationSpec
    let environment: OperationEnvironment

    func perform(index: Int, sample: inout IterationSample) async {
        let count = spec.kind == .addAttachment ? 1 : spec.batchSize
        let ids = environment.pool.sample(count)
        guard !ids.isEmpty else {
            sample.fail("no existing feature to attach to or query; seed some with `setup: { seed: N }`")
            if spec.kind == .addAttachment { sample.editsFailed += 1 }
            return
        }
        let layer = environment.layer
        if spec.kind == .addAttachment {
            let files = environment.attachmentFiles
            guard !files.isEmpty else { return }
            let file = files[index % files.count]
            do {
                let result = try await layer.addAttachment(
                    objectId: ids[0], file: file, contentType: spec.contentType,
                    options: AttachmentUploadOptions(threshold: spec.uploadThreshold))
                if result.success { sample.editsApplied += 1 } else { sample.fail(result.error) }
            } catch {
                guard !Task.isCancelled else { return sample.cutOff(edits: 1) }
                sample.fail(error, edits: 1)
            }
            return
        }
        do {
            let answer = try await layer.queryAttachments(objectIds: ids)
            guard spec.download else { return }
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

    /// Writes the attachment files a spec asks for into `directory`: one file for a fixed size, eight spread evenly
    /// over a range (seeded bytes).
    static func makeFiles(for spec: OperationSpec, in directory: String, seed: UInt64) throws -> [String] {
        let sizes: [Int64] =
            spec.attachmentSize.min == spec.attachmentSize.max
            ? [spec.attachmentSize.min]
            : (0..<8).map { spec.attachmentSize.min + (spec.attachmentSize.max - spec.attachmentSize.min) * Int64($0) / 7 }
        var random = SplitMix64(seed: seed)
        let ext = spec.contentType.contains("png") ? "png" : spec.contentType.contains("pdf") ? "pdf" : spec.contentType.contains("jpeg") ? "jpg" : "bin"
        return try sizes.enumerated().map { offset, size in
            let path = "\(directory)/\(spec.label)-\(offset).\(ext)"
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
