import FeatureModel
import MultipartKit
import NIOCore

/// Reads the form fields of a request body by its `Content-Type`.
///
/// - `application/x-www-form-urlencoded` (and a body with no content type): `a=1&b=2`.
/// - `multipart/form-data; boundary=…`: every part without a `filename` becomes a field; file parts are skipped
///   (attachments are a later issue).
/// - anything else (e.g. `application/json`): no fields.
enum FormBody {
    /// The fields in `body`.
    /// - Throws: ``ServiceError`` (400) for a multipart body without a boundary, or one that does not parse or end.
    static func fields(contentType: String?, body: ByteBuffer) throws(ServiceError) -> [FormField] {
        guard body.readableBytes > 0 else { return [] }
        let mediaType = contentType.map { String($0.split(separator: ";", maxSplits: 1).first ?? "").trimmed.lowercased() } ?? ""
        switch mediaType {
        case "", "application/x-www-form-urlencoded", "text/plain":
            return FormEncoding.decode(String(buffer: body))
        case "multipart/form-data":
            guard let boundary = contentType.flatMap(Self.boundary(in:)) else {
                throw ServiceError.malformedBody("multipart/form-data without a boundary")
            }
            return try multipartFields(body, boundary: boundary)
        default:
            return []
        }
    }

    /// The `boundary` parameter of a multipart content type, unquoted.
    static func boundary(in contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, String(pair[0]).trimmed.lowercased() == "boundary" else { continue }
            var value = String(pair[1]).trimmed
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// The plain fields of a multipart body.
    /// - Throws: ``ServiceError`` (400) when the body is not well-formed multipart or lacks its closing boundary.
    static func multipartFields(_ body: ByteBuffer, boundary: String) throws(ServiceError) -> [FormField] {
        let collector = PartCollector()
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in collector.header(name, value) }
        parser.onBody = { chunk in collector.body(&chunk) }
        parser.onPartComplete = { collector.complete() }
        do {
            try parser.execute(body)
        } catch {
            throw ServiceError.malformedBody("multipart/form-data does not parse")
        }
        guard collector.partCount > 0, hasClosingDelimiter(body, boundary: boundary) else {
            throw ServiceError.malformedBody("multipart/form-data has no closing boundary")
        }
        return collector.fields
    }

    /// Whether `--boundary--` occurs near the end of `body` (only an epilogue, normally a CRLF, may follow it).
    private static func hasClosingDelimiter(_ body: ByteBuffer, boundary: String) -> Bool {
        let window = min(body.readableBytes, boundary.utf8.count + 1024)
        guard let tail = body.getString(at: body.readerIndex + body.readableBytes - window, length: window) else { return false }
        return tail.contains("--\(boundary)--")
    }
}

/// Gathers parts as the (callback-driven, single-threaded) multipart parser reports them.
private final class PartCollector {
    private var name: String?
    private var hasFilename = false
    private var value = ByteBuffer()
    private(set) var fields: [FormField] = []
    private(set) var partCount = 0

    func header(_ headerName: String, _ headerValue: String) {
        guard headerName.lowercased() == "content-disposition" else { return }
        for parameter in headerValue.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            var text = String(pair[1]).trimmed
            if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = String(text.dropFirst().dropLast()) }
            switch String(pair[0]).trimmed.lowercased() {
            case "name": name = text
            case "filename": hasFilename = true
            default: break
            }
        }
    }

    func body(_ chunk: inout ByteBuffer) {
        value.writeBuffer(&chunk)
    }

    func complete() {
        partCount += 1
        if let name, !hasFilename { fields.append(FormField(name, String(buffer: value))) }
        name = nil
        hasFilename = false
        value = ByteBuffer()
    }
}
