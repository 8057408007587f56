import FeatureModel
import HTTPTypes
import Hummingbird
import NIOCore

extension Response {
    /// The HTTP answer for `answer`: its JSON body, or — for an attachment download — the attachment's bytes, read
    /// from the database a chunk at a time as the connection takes them, with the stored content type,
    /// `Content-Length`, `X-Content-Type-Options: nosniff` and a `Content-Disposition` (``AttachmentDisposition``).
    ///
    /// If the attachment is deleted or replaced while it is being sent, the connection is closed early (the length
    /// no longer matches), so a client never takes a mix of old and new bytes for the whole file.
    static func featureService(_ answer: ServerResponse) -> Response {
        guard let download = answer.download else {
            return Response(
                status: HTTPResponse.Status(code: answer.status), headers: [.contentType: answer.contentType],
                body: ResponseBody(byteBuffer: answer.body))
        }
        var headers: HTTPFields = [.contentType: download.contentType]
        headers[.contentDisposition] = AttachmentDisposition.header(contentType: download.contentType, fileName: download.name)
        // Browsers must not guess a type: an upload declared image/png that holds HTML stays an image.
        headers[.xContentTypeOptions] = "nosniff"
        let chunkSize = 1 << 20
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody(contentLength: download.size) { writer in
                var offset = 0
                while offset < download.size {
                    let chunk = try await download.store.attachmentChunk(download, offset: offset, count: chunkSize)
                    guard chunk.readableBytes > 0 else { throw ServiceError.internalError("attachment \(download.attachmentId) ended early") }
                    offset += chunk.readableBytes
                    try await writer.write(chunk)
                }
                try await writer.finish(nil)
            })
    }
}

extension HTTPField.Name {
    static let xContentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
}

/// The `Content-Disposition` of an attachment download.
///
/// Attachments are uploaded by anyone who can edit, so a browser must never run one as a page of this server: only
/// passive types (images, audio, video, PDF, plain text) are shown `inline`; HTML, SVG, XML, scripts and anything
/// unknown are downloaded (`attachment`). The file name goes as an ASCII `filename` and, when it has other
/// characters, also as RFC 5987's `filename*=UTF-8''…` (RFC 6266), so "Café.jpg" keeps its name.
enum AttachmentDisposition {
    /// Media types a browser only displays, never executes.
    static let passiveTypes: Set<String> = [
        "image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "image/tiff", "image/avif", "application/pdf", "text/plain", "text/csv",
    ]

    static func header(contentType: String, fileName: String) -> String {
        let media = FormBody.mediaType(contentType)
        let inline = passiveTypes.contains(media) || media.hasPrefix("audio/") || media.hasPrefix("video/")
        let name = fileName.isEmpty ? AttachmentName.fallback : fileName
        let ascii = String(
            String.UnicodeScalarView(
                name.unicodeScalars.map { scalar in
                    scalar.isASCII && scalar != "\"" && scalar != "\\" && scalar.value >= 0x20 && scalar.value != 0x7F ? scalar : "_"
                }))
        var header = "\(inline ? "inline" : "attachment"); filename=\"\(ascii)\""
        if ascii != name { header += "; filename*=UTF-8''" + FormEncoding.escape(name) }
        return header
    }
}
