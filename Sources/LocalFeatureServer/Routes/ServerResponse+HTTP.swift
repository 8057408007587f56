import FeatureModel
import Hummingbird
import NIOCore

extension Response {
    /// The HTTP answer for `answer`: its JSON body, or — for an attachment download — the attachment's bytes, read
    /// from the database a chunk at a time as the connection takes them, with the stored content type,
    /// `Content-Length` and a `Content-Disposition` naming the (sanitised) file name.
    ///
    /// If the attachment is deleted or replaced while it is being sent, the connection is closed early (the length
    /// no longer matches), so a client never takes a mix of old and new bytes for the whole file.
    static func featureService(_ answer: ServerResponse) -> Response {
        guard let download = answer.download else {
            return Response(
                status: HTTPResponse.Status(code: answer.status), headers: [.contentType: FeatureServerResponder.contentType],
                body: ResponseBody(byteBuffer: answer.body))
        }
        let fileName = download.name.filter { $0 != "\"" && $0 != "\\" && $0.isASCII }
        var headers: HTTPFields = [.contentType: download.contentType]
        headers[.contentDisposition] = "inline; filename=\"\(fileName.isEmpty ? AttachmentName.fallback : fileName)\""
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
