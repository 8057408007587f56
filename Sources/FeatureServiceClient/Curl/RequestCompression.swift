internal import CZlib

/// gzip compression of request bodies (``CurlTransportConfiguration/compressRequestBodies``). Pure: no I/O.
///
/// libcurl decodes compressed responses but cannot compress what it sends, and Foundation has no gzip on Linux,
/// so this calls zlib (which libcurl links against anyway) at level 1: for a load generator, CPU per request
/// matters more than the last 10 % of size, and JSON edits still shrink severalfold.
enum RequestCompression {
    /// Bodies smaller than this go out as they are: the gzip header and trailer (18 bytes) and the extra header
    /// line would outweigh the saving. 1 KiB.
    static let minimumSize = 1024

    /// The zlib level: 1, the fastest.
    static let level: Int32 = 1

    /// `request` with its body gzipped and `Content-Encoding: gzip` added — or `request` unchanged when it is not
    /// a POST, its body is a multipart stream or under ``minimumSize``, it already names a `Content-Encoding`, or
    /// compression would not make it smaller.
    package static func compressed(_ request: HTTPRequest) -> HTTPRequest {
        guard request.method == .post, let bytes = request.body.bytes, bytes.count >= minimumSize,
            bytes.count < Int(UInt32.max),
            !request.headers.contains(where: { $0.name.lowercased() == "content-encoding" }),
            let packed = gzip(bytes), packed.count < bytes.count
        else { return request }
        var request = request
        request.body = .bytes(packed)
        request.headers.append(HTTPHeader("Content-Encoding", "gzip"))
        return request
    }

    /// `bytes` as one gzip member (RFC 1952), or nil if zlib fails (it does not for inputs under 4 GiB).
    package static func gzip(_ bytes: [UInt8]) -> [UInt8]? {
        let capacity = czlib_gzip_bound(bytes.count)
        var written = 0
        var status = Z_OK
        let output = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            status = bytes.withUnsafeBufferPointer { input in
                czlib_gzip(input.baseAddress, input.count, buffer.baseAddress, capacity, level, &written)
            }
            count = status == Z_OK ? written : 0
        }
        return status == Z_OK ? output : nil
    }
}
