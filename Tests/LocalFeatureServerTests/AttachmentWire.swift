import FeatureModel
import FeatureServiceClient
import Foundation

/// Builds multipart/form-data requests (fields and file parts) for the attachment and upload tests, and reads
/// their answers.
enum AttachmentWire {
    /// One part of a multipart body.
    enum Part {
        case field(String, String)
        case file(name: String, filename: String, contentType: String?, bytes: [UInt8])
    }

    static let boundary = "----featureloadAttachmentBoundary7d41"

    /// A POST of `parts` as multipart/form-data to `url`.
    static func multipart(_ url: String, _ parts: [Part], headers: [HTTPHeader] = []) -> HTTPRequest {
        var body: [UInt8] = []
        for part in parts {
            body += Array("--\(boundary)\r\n".utf8)
            switch part {
            case .field(let name, let value):
                body += Array("Content-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
            case .file(let name, let filename, let contentType, let bytes):
                body += Array("Content-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\n".utf8)
                if let contentType { body += Array("Content-Type: \(contentType)\r\n".utf8) }
                body += Array("\r\n".utf8) + bytes + Array("\r\n".utf8)
            }
        }
        body += Array("--\(boundary)--\r\n".utf8)
        return HTTPRequest(
            method: .post, url: url, headers: [HTTPHeader("Content-Type", "multipart/form-data; boundary=\(boundary)")] + headers, body: body,
            timeout: .seconds(50))
    }

    /// Deterministic bytes that include CR, LF, `--` and a near-boundary run, so the multipart parser sees them in data.
    static func bytes(_ count: Int, seed: UInt8 = 7) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var state = UInt32(seed) &* 2_654_435_761
        for index in 0..<count {
            state = state &* 1_664_525 &+ 1_013_904_223
            bytes[index] = UInt8(truncatingIfNeeded: state >> 24)
        }
        let tricky = Array("\r\n--\(boundary.dropLast(3))\r\n\r\n--".utf8)
        if count > tricky.count * 2 { bytes.replaceSubrange(count / 2..<count / 2 + tricky.count, with: tricky) }
        return bytes
    }

    /// The JSON object of `response`.
    static func json(_ response: HTTPResponse) -> JSONValue {
        (try? JSONReader.parse(bytes: response.body)) ?? .null
    }

    /// The envelope `error.code` of `response`, if it is an error.
    static func errorCode(_ response: HTTPResponse) -> Int? {
        WireJSON.error(in: response.body)?.code
    }
}
