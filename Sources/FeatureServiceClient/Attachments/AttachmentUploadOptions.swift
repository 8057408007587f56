import FeatureModel

/// How ``FeatureLayerClient`` sends attachment files: directly, or through the service's `uploads` resource.
///
/// Files up to ``threshold`` go in the addAttachment/updateAttachment request itself. Larger files are registered
/// with `uploads/register`, sent as parts of ``partSize`` bytes (`uploadPart`, at most ``concurrency`` at a time),
/// committed with the ordered part list, attached by `uploadId`, and the upload item is deleted afterwards — as the
/// arcgis Python client does above 10 MB.
public struct AttachmentUploadOptions: Sendable, Hashable {
    /// Files larger than this many bytes go through `uploads`. Default 10 MB (10,000,000 bytes).
    public var threshold: Int64
    /// Bytes per uploaded part (the last may be smaller). Default 5 MiB.
    public var partSize: Int64
    /// Parts sent at the same time. Default 4.
    public var concurrency: Int

    /// Options with the documented defaults.
    public init(threshold: Int64 = 10_000_000, partSize: Int64 = 5 << 20, concurrency: Int = 4) {
        self.threshold = threshold
        self.partSize = partSize
        self.concurrency = concurrency
    }
}

/// How one file is sent: a pure decision from its size and the options.
enum AttachmentUploadPlan: Sendable, Hashable {
    /// In the edit request, as the multipart part `attachment`.
    case direct
    /// Through `uploads`: these ranges of the file, as parts 1, 2, … in order.
    case parts([MultipartBody.FileRange])

    /// The plan for `size` bytes of the file at `path`.
    /// - Precondition: `options.partSize` and `options.concurrency` are positive (checked by the caller).
    static func make(path: String, size: Int64, options: AttachmentUploadOptions) -> AttachmentUploadPlan {
        guard size > options.threshold else { return .direct }
        var ranges: [MultipartBody.FileRange] = []
        var offset: Int64 = 0
        while offset < size {
            let length = min(options.partSize, size - offset)
            ranges.append(MultipartBody.FileRange(path: path, offset: offset, length: length))
            offset += length
        }
        return .parts(ranges)
    }
}

/// Attachment names and content types as the client sends them.
enum AttachmentFileName {
    /// `name` reduced to a plain file name: the last component after `/` or `\`, without control characters and
    /// leading dots; `attachment` when nothing is left. A name never carries a directory to the service, and a
    /// name listed by the service never becomes a path outside the directory a caller saves into.
    static func sanitized(_ name: String) -> String {
        let last = name.split(omittingEmptySubsequences: false) { $0 == "/" || $0 == "\\" }.last.map(String.init) ?? ""
        var cleaned = String(String.UnicodeScalarView(last.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
        while cleaned.hasPrefix(".") || cleaned.hasPrefix(" ") { cleaned.removeFirst() }
        while cleaned.hasSuffix(" ") { cleaned.removeLast() }
        return cleaned.isEmpty ? "attachment" : String(cleaned.prefix(255))
    }

    /// The media type usual for `name`'s extension; `application/octet-stream` when unknown.
    static func contentType(forName name: String) -> String { MediaType.forFileName(name) }
}
