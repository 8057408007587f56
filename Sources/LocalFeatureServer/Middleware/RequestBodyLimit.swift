import FeatureModel
import Hummingbird
import NIOCore

/// Reads request bodies up to the configured limit (``LocalFeatureServerConfiguration/Limits``).
enum RequestBodyLimit {
    /// Collects `request`'s body (once; later reads see the same bytes) if it fits in `limit` bytes.
    ///
    /// A declared `Content-Length` over the limit is refused before anything is read.
    /// - Throws: ``ServiceError`` (code 413) when the body is larger than `limit`; errors of the connection.
    static func collect(_ request: inout Request, limit: Int) async throws -> ByteBuffer {
        if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > limit {
            throw tooLarge(limit: limit)
        }
        do {
            return try await request.collectBody(upTo: limit)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw tooLarge(limit: limit)
        } catch is NIOTooManyBytesError {
            // A chunked body (no Content-Length) found too large as it streams in.
            throw tooLarge(limit: limit)
        }
    }

    /// The envelope for a body over `limit` bytes: code 413, naming the limit and the option that sets it.
    static func tooLarge(limit: Int) -> ServiceError {
        ServiceError(
            ArcGISError(
                code: 413,
                message: "Request body too large.",
                details: ["The request body is larger than the server's limit of \(describe(limit)) (featureload serve --max-request-body)."]
            )
        )
    }

    /// `limit` in MiB or KiB when exact, else bytes.
    static func describe(_ bytes: Int) -> String {
        if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10 && bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }
}
