/// A `multipart/form-data` request body (RFC 7578) whose file parts stay on disk until the request is sent.
///
/// Plain fields and small in-memory files are held as bytes; file parts name a byte range of a file, which the
/// transport reads in chunks while sending (``BodyReader``), so a 50 MB attachment never sits in memory. The exact
/// length is computed up front from the parts' headers and the ranges' lengths, so the request carries a
/// `Content-Length` and the service can refuse an oversized body before reading it.
///
/// The layout, with `B` the boundary:
///
/// ```text
/// --B\r\n
/// Content-Disposition: form-data; name="f"\r\n
/// \r\n
/// json\r\n
/// --B\r\n
/// Content-Disposition: form-data; name="attachment"; filename="photo.jpg"\r\n
/// Content-Type: image/jpeg\r\n
/// \r\n
/// <the file's bytes>\r\n
/// --B--\r\n
/// ```
///
/// File contents are not scanned for the boundary (that would mean reading them twice); the default boundary is 32
/// random hex digits, which a file contains by chance with negligible probability.
package struct MultipartBody: Sendable, Hashable {
    /// A byte range of a file on disk.
    package struct FileRange: Sendable, Hashable {
        /// The file's path.
        package var path: String
        /// The first byte of the range.
        package var offset: Int64
        /// The number of bytes in the range.
        package var length: Int64

        /// A range of `length` bytes from `offset` of the file at `path`.
        package init(path: String, offset: Int64 = 0, length: Int64) {
            self.path = path
            self.offset = offset
            self.length = length
        }
    }

    /// One part: a named field, or a file with a file name and content type.
    package struct Part: Sendable, Hashable {
        /// Where a part's content comes from.
        package enum Content: Sendable, Hashable {
            /// Bytes held in memory.
            case bytes([UInt8])
            /// A byte range of a file, read while the body is sent.
            case file(FileRange)

            /// The content's length in bytes.
            package var length: Int64 {
                switch self {
                case .bytes(let bytes): Int64(bytes.count)
                case .file(let range): range.length
                }
            }
        }

        /// The form field name (`name="…"`).
        package var name: String
        /// The file name (`filename="…"`); nil for a plain field, which the service reads as text.
        package var filename: String?
        /// The part's `Content-Type`; nil sends none (plain fields, as the arcgis Python client does).
        package var contentType: String?
        /// The part's content.
        package var content: Content

        /// A part with every property given.
        package init(name: String, filename: String? = nil, contentType: String? = nil, content: Content) {
            self.name = name
            self.filename = filename
            self.contentType = contentType
            self.content = content
        }

        /// A plain text field.
        package static func field(_ name: String, _ value: String) -> Part {
            Part(name: name, content: .bytes(Array(value.utf8)))
        }

        /// A file part whose bytes are `range` of a file on disk.
        package static func file(name: String, filename: String, contentType: String, range: FileRange) -> Part {
            Part(name: name, filename: filename, contentType: contentType, content: .file(range))
        }

        /// A file part whose bytes are held in memory.
        package static func file(name: String, filename: String, contentType: String, bytes: [UInt8]) -> Part {
            Part(name: name, filename: filename, contentType: contentType, content: .bytes(bytes))
        }

        /// The part's header block: delimiter line, `Content-Disposition`, optional `Content-Type`, blank line.
        ///
        /// Quotes, CR and LF in names become `%22`, `%0D`, `%0A` (as browsers encode them), so no name can end the
        /// header line or the quoted string early; a content type loses its CR and LF.
        func header(boundary: String) -> [UInt8] {
            var text = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + Self.quoted(name) + "\""
            if let filename { text += "; filename=\"" + Self.quoted(filename) + "\"" }
            text += "\r\n"
            if let contentType { text += "Content-Type: " + contentType.filter { $0 != "\r" && $0 != "\n" && $0 != "\r\n" } + "\r\n" }
            text += "\r\n"
            return Array(text.utf8)
        }

        static func quoted(_ text: String) -> String {
            var result = ""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": result += "%22"
                case "\r": result += "%0D"
                case "\n": result += "%0A"
                default: result.unicodeScalars.append(scalar)
                }
            }
            return result
        }
    }

    /// The boundary between parts: 1 to 70 characters that never occur in a part's content.
    package let boundary: String
    /// The parts, in order.
    package var parts: [Part]

    /// A body of `parts` separated by `boundary`.
    /// - Parameters:
    ///   - parts: The parts, in order.
    ///   - boundary: The boundary; by default 32 random hex digits after `featureload-`.
    package init(parts: [Part], boundary: String = MultipartBody.makeBoundary()) {
        self.parts = parts
        self.boundary = boundary
    }

    /// A fresh random boundary, `featureload-` and 32 hex digits.
    static func makeBoundary() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = String(generator.next() as UInt64, radix: 16)
        let low = String(generator.next() as UInt64, radix: 16)
        return "featureload-" + String(repeating: "0", count: 16 - high.count) + high + String(repeating: "0", count: 16 - low.count) + low
    }

    /// The request's `Content-Type` value: `multipart/form-data; boundary=…`.
    package var contentType: String { "multipart/form-data; boundary=" + boundary }

    /// The body's exact length in bytes: headers, contents, line breaks and the closing delimiter.
    package var contentLength: Int64 {
        segments.reduce(0) { $0 + $1.length }
    }

    /// The body as a sequence of in-memory runs and file ranges, in sending order.
    var segments: [Segment] {
        var segments: [Segment] = []
        var pending: [UInt8] = []
        for part in parts {
            pending += part.header(boundary: boundary)
            switch part.content {
            case .bytes(let bytes):
                pending += bytes
            case .file(let range):
                if !pending.isEmpty { segments.append(.bytes(pending)) }
                pending = []
                if range.length > 0 { segments.append(.file(range)) }
            }
            pending += Self.lineBreak
        }
        pending += Array(("--" + boundary + "--\r\n").utf8)
        segments.append(.bytes(pending))
        return segments
    }

    static let lineBreak: [UInt8] = [0x0D, 0x0A]

    /// A run of the body: bytes in memory, or a file range to read.
    enum Segment: Sendable, Hashable {
        case bytes([UInt8])
        case file(FileRange)

        var length: Int64 {
            switch self {
            case .bytes(let bytes): Int64(bytes.count)
            case .file(let range): range.length
            }
        }
    }
}
