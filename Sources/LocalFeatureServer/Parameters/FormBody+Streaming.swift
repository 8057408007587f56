import FeatureModel
import Hummingbird
import NIOCore

/// A request body as the responder receives it: in memory, or (multipart) already parsed while it streamed in.
struct RequestContent: Sendable {
    /// The body when it was collected in memory; empty when it was streamed.
    var body: ByteBuffer
    /// The parsed multipart form when the body was streamed.
    var form: MultipartForm?
}

extension FormBody {
    /// Reads `request`'s body within `limits`: a `multipart/form-data` body is parsed as it arrives (file parts over
    /// ``MultipartAccumulator/Limits/spillThreshold`` go to temporary files, so a large attachment is never held
    /// whole in memory); any other body is collected in memory up to the request body limit.
    ///
    /// The caller removes the form's files (``MultipartForm/removeFiles()``) once the request is answered.
    /// - Throws: ``ServiceError`` 413 when the body, a field or the files are over a limit; 400 for malformed
    ///   multipart; errors of the connection; `CancellationError`.
    static func read(_ request: inout Request, limits: LocalFeatureServerConfiguration.Limits) async throws -> RequestContent {
        let contentType = request.headers[.contentType]
        guard mediaType(contentType) == "multipart/form-data", let boundary = contentType.flatMap(Self.boundary(in:)) else {
            return RequestContent(body: try await RequestBodyLimit.collect(&request, limit: limits.maximumRequestBodySize))
        }
        let (total, overflow) = limits.maximumRequestBodySize.addingReportingOverflow(limits.maximumAttachmentSize)
        if !overflow, let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > total {
            throw AttachmentLimit.tooLarge(limit: limits.maximumAttachmentSize)
        }
        let form = try await stream(request.body, boundary: boundary, limits: limits)
        return RequestContent(body: ByteBuffer(), form: form)
    }

    /// Parses a multipart body chunk by chunk as it arrives.
    /// - Throws: ``ServiceError`` (400 malformed, 413 over a limit); errors of `body`; `CancellationError`. Temporary
    ///   files are removed before it throws.
    static func stream<Body: AsyncSequence>(
        _ body: Body, boundary: String, limits: LocalFeatureServerConfiguration.Limits
    ) async throws -> MultipartForm where Body.Element == ByteBuffer {
        let accumulator = MultipartAccumulator(
            boundary: boundary,
            limits: MultipartAccumulator.Limits(
                fieldBytes: limits.maximumRequestBodySize, fileBytes: limits.maximumAttachmentSize,
                spillThreshold: limits.inMemoryFilePartSize, temporaryRoot: limits.temporaryDirectory ?? ""))
        do {
            for try await chunk in body {
                try accumulator.feed(chunk)
            }
            return try accumulator.finish()
        } catch {
            accumulator.abandon()
            throw error
        }
    }
}

/// The attachment and upload size limit (``LocalFeatureServerConfiguration/Limits/maximumAttachmentSize``).
enum AttachmentLimit {
    /// The envelope for a file over `limit` bytes: code 413, naming the limit.
    static func tooLarge(limit: Int) -> ServiceError {
        ServiceError(
            ArcGISError(
                code: 413,
                message: "Attachment too large.",
                details: [
                    "The file is larger than the server's attachment size limit of \(RequestBodyLimit.describe(limit)); serve raises it with --max-attachment-size."
                ]
            )
        )
    }
}
