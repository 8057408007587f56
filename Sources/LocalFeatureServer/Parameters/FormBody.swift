import FeatureModel
import NIOCore

/// Reads the form fields of a request body by its `Content-Type`.
///
/// - `application/x-www-form-urlencoded` (and a body with no content type): `a=1&b=2`.
/// - `multipart/form-data; boundary=…`: every part without a `filename` becomes a field; parts with a `filename`
///   become ``FilePart``s (``form(contentType:body:)``, and streamed from the socket by ``stream(_:boundary:limits:)``).
/// - anything else (e.g. `application/json`): no fields.
enum FormBody {
    /// The fields in `body` (file parts are left out).
    /// - Throws: ``ServiceError`` (400) for a multipart body without a boundary, or one that does not parse or end.
    static func fields(contentType: String?, body: ByteBuffer) throws(ServiceError) -> [FormField] {
        try form(contentType: contentType, body: body).fields
    }

    /// The fields and file parts in `body`, which is already in memory (file parts stay in memory too).
    /// - Throws: ``ServiceError`` (400) for a multipart body without a boundary, or one that does not parse or end.
    static func form(contentType: String?, body: ByteBuffer) throws(ServiceError) -> MultipartForm {
        guard body.readableBytes > 0 else { return MultipartForm() }
        switch mediaType(contentType) {
        case "", "application/x-www-form-urlencoded", "text/plain":
            return MultipartForm(fields: try urlEncodedFields(Array(body.readableBytesView)))
        case "multipart/form-data":
            guard let boundary = contentType.flatMap(Self.boundary(in:)) else {
                throw ServiceError.malformedBody("multipart/form-data without a boundary")
            }
            let accumulator = MultipartAccumulator(boundary: boundary, limits: .unlimitedInMemory)
            try accumulator.feed(body)
            return try accumulator.finish()
        default:
            return MultipartForm()
        }
    }

    /// The fields of a query string or an url-encoded body. A name or value that is not UTF-8 once percent-decoded
    /// is refused, not silently changed to U+FFFD (which would store different text than was sent).
    /// - Throws: ``ServiceError`` (400) naming the field.
    static func urlEncodedFields(_ bytes: [UInt8]) throws(ServiceError) -> [FormField] {
        do {
            return try FormEncoding.decodeValidatingUTF8(utf8: bytes)
        } catch {
            throw ServiceError.invalidParameter(error.name, reason: "it is not valid UTF-8; send text as UTF-8, percent-encoded")
        }
    }

    /// The lower-cased media type of `contentType` (`""` when there is none).
    static func mediaType(_ contentType: String?) -> String {
        guard let contentType else { return "" }
        // Every request asks (twice): header values are ASCII in practice, so bytes are trimmed and lower-cased directly;
        // anything else takes the general path, which trims and lower-cases by Unicode rules.
        let bytes = contentType.utf8
        guard bytes.first != UInt8(ascii: ";"), bytes.allSatisfy({ $0 < 0x80 }) else {
            return String(contentType.split(separator: ";", maxSplits: 1).first ?? "").trimmed.lowercased()
        }
        let isSpace = { (byte: UInt8) in byte == 0x20 || (0x09...0x0D).contains(byte) }
        let media = bytes.prefix { $0 != UInt8(ascii: ";") }
        guard let first = media.firstIndex(where: { !isSpace($0) }), let last = media.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(decoding: media[first...last].map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
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
}

/// Gathers the parts of a multipart body as ``MultipartStreamParser`` reports them, chunk by chunk: plain fields in
/// memory, file parts in memory up to ``Limits/spillThreshold`` and in a temporary file beyond it.
///
/// Not thread-safe: one request's task feeds it, then calls ``finish()`` once.
final class MultipartAccumulator {
    /// How much of a form may be held, and where.
    struct Limits {
        /// Most bytes of plain fields held in memory (the request body limit); also the most of one part's header lines.
        var fieldBytes: Int
        /// Most bytes of all file parts together (the attachment size limit).
        var fileBytes: Int
        /// File parts larger than this go to a temporary file.
        var spillThreshold: Int
        /// The directory under which a request's temporary directory is made.
        var temporaryRoot: String

        /// Everything in memory, no limits: for bodies that are already in memory.
        static let unlimitedInMemory = Limits(fieldBytes: .max, fileBytes: .max, spillThreshold: .max, temporaryRoot: "")
    }

    private var parser: MultipartStreamParser
    private let limits: Limits

    private var name: String?
    private var filename: String?
    private var contentType: String?
    private var value: [UInt8] = []
    private var spill: TemporaryFileWriter?
    private var partSize = 0

    private var form = MultipartForm()
    private var fieldBytes = 0
    private var fileBytes = 0
    private var failure: ServiceError?

    init(boundary: String, limits: Limits) {
        self.parser = MultipartStreamParser(boundary: boundary, maximumHeaderSize: limits.fieldBytes)
        self.limits = limits
    }

    deinit {
        try? spill?.close()
    }

    /// Parses the next `chunk` of the body.
    /// - Throws: ``ServiceError`` (400) when the body does not parse; (413) when a limit is passed. The temporary files
    ///   are removed before it throws.
    func feed(_ chunk: ByteBuffer) throws(ServiceError) {
        var chunk = chunk
        while failure == nil {
            let event: MultipartStreamParser.Event?
            do throws(MultipartStreamParser.Failure) {
                event = try parser.next(in: &chunk)
            } catch {
                fail(serviceError(error))
                break
            }
            switch event {
            case .header(let name, let value): header(name, value)
            case .body(let bytes): body(bytes)
            case .partEnd: complete()
            case nil: return
            }
        }
        if let failure {
            abandon()
            throw failure
        }
    }

    /// The form, once the whole body has been fed.
    /// - Throws: ``ServiceError`` (400) when the body lacks its closing boundary.
    func finish() throws(ServiceError) -> MultipartForm {
        guard parser.isClosed else {
            abandon()
            throw ServiceError.malformedBody("multipart/form-data has no closing boundary")
        }
        return form
    }

    /// Removes whatever was written to disk (after a failure).
    func abandon() {
        try? spill?.close()
        spill = nil
        form.removeFiles()
        form.files = []
    }

    private func serviceError(_ failure: MultipartStreamParser.Failure) -> ServiceError {
        switch failure {
        case .syntax: ServiceError.malformedBody("multipart/form-data does not parse")
        case .nonASCIIHeaderName: ServiceError.malformedBody("multipart/form-data has a part header name that is not ASCII")
        case .headersTooLarge: RequestBodyLimit.tooLarge(limit: limits.fieldBytes)
        }
    }

    private func fail(_ error: ServiceError) {
        if failure == nil { failure = error }
    }

    private func header(_ headerName: String, _ headerValue: String) {
        switch headerName.lowercased() {
        case "content-disposition":
            for parameter in headerValue.split(separator: ";").dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2 else { continue }
                var text = String(pair[1]).trimmed
                if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = String(text.dropFirst().dropLast()) }
                switch String(pair[0]).trimmed.lowercased() {
                case "name": name = text
                case "filename": filename = text
                default: break
                }
            }
        case "content-type":
            contentType = headerValue.trimmed
        default:
            break
        }
    }

    private func body(_ chunk: ByteBuffer) {
        guard failure == nil else { return }
        let count = chunk.readableBytes
        partSize += count
        if filename == nil {
            fieldBytes += count
            guard fieldBytes <= limits.fieldBytes else { return fail(RequestBodyLimit.tooLarge(limit: limits.fieldBytes)) }
            value.append(contentsOf: chunk.readableBytesView)
            return
        }
        fileBytes += count
        guard fileBytes <= limits.fileBytes else { return fail(AttachmentLimit.tooLarge(limit: limits.fileBytes)) }
        if let spill {
            do { try spill.write(chunk.readableBytesView) } catch { fail(ServiceError.internalError("cannot write a temporary file: \(error)")) }
            return
        }
        value.append(contentsOf: chunk.readableBytesView)
        if value.count > limits.spillThreshold {
            do {
                let directory = try temporaryDirectory()
                let writer = try TemporaryFileWriter(directory: directory)
                try writer.write(value)
                value = []
                spill = writer
            } catch {
                fail(ServiceError.internalError("cannot write a temporary file: \(error)"))
            }
        }
    }

    private func temporaryDirectory() throws -> String {
        if let existing = form.temporaryDirectory { return existing }
        let directory = try TemporaryFileWriter.makeDirectory(under: limits.temporaryRoot)
        form.temporaryDirectory = directory
        return directory
    }

    private func complete() {
        defer {
            name = nil
            filename = nil
            contentType = nil
            value = []
            spill = nil
            partSize = 0
        }
        guard failure == nil, let name else { return }
        guard let filename else {
            guard let text = String(validating: value, as: UTF8.self) else {
                failure = ServiceError.invalidParameter(name, reason: "it is not valid UTF-8; send text as UTF-8")
                return
            }
            form.fields.append(FormField(name, text))
            return
        }
        let storage: FilePart.Storage
        if let spill {
            do {
                try spill.close()
            } catch {
                return fail(ServiceError.internalError("cannot write a temporary file: \(error)"))
            }
            storage = .file(path: spill.path)
        } else {
            storage = .memory(value)
        }
        form.files.append(FilePart(fieldName: name, filename: filename, contentType: contentType, storage: storage, size: partSize))
    }
}
