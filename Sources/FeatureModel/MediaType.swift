/// Media types for attachment file names, shared by the client (what it declares when uploading) and the local
/// server (what it stores when a client declares none).
package enum MediaType {
    /// The fallback for unknown or missing extensions.
    static let octetStream = "application/octet-stream"

    private static let byExtension: [String: String] = [
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "tif": "image/tiff", "tiff": "image/tiff",
        "webp": "image/webp", "bmp": "image/bmp", "pdf": "application/pdf", "txt": "text/plain", "csv": "text/csv",
        "json": "application/json", "xml": "application/xml", "zip": "application/zip", "mp4": "video/mp4", "mov": "video/quicktime",
        "mp3": "audio/mpeg", "wav": "audio/wav", "doc": "application/msword",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ]

    /// The media type usual for `name`'s extension (case-insensitive); ``octetStream`` when unknown.
    package static func forFileName(_ name: String) -> String {
        guard let dot = name.lastIndex(of: ".") else { return octetStream }
        return byExtension[name[name.index(after: dot)...].lowercased()] ?? octetStream
    }
}
