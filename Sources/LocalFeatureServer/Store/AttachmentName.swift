import FeatureModel

/// Makes client-supplied attachment names and content types safe to store and to hand back.
///
/// Attachment bytes live in the database, so no name ever becomes a path on the server. Names are still handed back
/// (listings, `Content-Disposition`), and clients save downloads under them (the arcgis Python client writes
/// `<save_path>/<name>`), so a stored name is a plain file name: no directory part, no `..`, no control characters.
enum AttachmentName {
    /// The name used when nothing usable is left.
    static let fallback = "attachment"
    /// Longest stored name, in characters.
    static let maximumLength = 255

    /// `name` reduced to its last path component (after `/` or `\`), without control characters, leading dots and
    /// surrounding white space, at most ``maximumLength`` characters; ``fallback`` when nothing is left.
    static func sanitized(_ name: String) -> String {
        let lastComponent = name.split(omittingEmptySubsequences: false) { $0 == "/" || $0 == "\\" }.last.map(String.init) ?? ""
        var cleaned = String(String.UnicodeScalarView(lastComponent.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
        cleaned = cleaned.trimmed
        while cleaned.hasPrefix(".") { cleaned.removeFirst() }
        cleaned = cleaned.trimmed
        if cleaned.count > maximumLength { cleaned = String(cleaned.prefix(maximumLength)) }
        return cleaned.isEmpty ? fallback : cleaned
    }

    /// `contentType` as `type/subtype` in lower case (parameters dropped) when it is a well-formed media type,
    /// else `application/octet-stream`.
    static func contentType(_ contentType: String?) -> String {
        let fallback = "application/octet-stream"
        guard let contentType else { return fallback }
        let essence = (contentType.split(separator: ";", maxSplits: 1).first.map(String.init) ?? "").trimmed.lowercased()
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.count <= 127 && $0.allSatisfy(Self.tokenCharacters.contains) }) else {
            return fallback
        }
        return essence
    }

    private static let tokenCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789!#$&^_.+-")

    /// Keywords as stored: control characters removed, at most 1024 characters.
    static func keywords(_ text: String?) -> String {
        let cleaned = String(String.UnicodeScalarView((text ?? "").unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
        return String(cleaned.trimmed.prefix(1024))
    }
}

extension AttachmentName {
    /// The media type usual for `name`'s extension, `application/octet-stream` when unknown.
    static func contentType(forName name: String) -> String { MediaType.forFileName(name) }
}
