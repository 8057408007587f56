import FeatureModel

/// The form parameters of one request, from the query string and the body together, plus the body's file parts.
///
/// Names are matched case-insensitively; a body field overrides a query-string field of the same name. Blank
/// values count as absent (clients send empty placeholders such as `attachmentTypes=`). Unknown parameters are
/// simply never asked for.
struct RequestParameters: Sendable, Hashable {
    private var values: [String: String] = [:]
    /// File parts of a multipart body by lower-cased field name (the last one of a name wins).
    private var fileParts: [String: FilePart] = [:]

    /// Parameters from `fields`, later fields winning.
    init(_ fields: [FormField] = []) {
        merge(fields)
    }

    /// Adds `fields`, replacing earlier values of the same name.
    mutating func merge(_ fields: [FormField]) {
        for field in fields { values[field.name.lowercased()] = field.value }
    }

    /// Adds the fields and file parts of `form`, replacing earlier values of the same name.
    mutating func merge(_ form: MultipartForm) {
        merge(form.fields)
        for file in form.files { fileParts[file.fieldName.lowercased()] = file }
    }

    /// The file part named `name` (e.g. `attachment`, `file`), or nil when the request carried none.
    func file(_ name: String) -> FilePart? {
        fileParts[name.lowercased()]
    }

    /// The value of `name`, or nil when it is missing or blank.
    subscript(_ name: String) -> String? {
        guard let value = values[name.lowercased()], value.contains(where: { !$0.isWhitespace }) else { return nil }
        return value
    }

    /// `name` as a boolean (`true`/`false` in any case), or `defaultValue` when missing.
    /// - Throws: ``ServiceError`` (400) when the value is not a boolean.
    func bool(_ name: String, default defaultValue: Bool) throws(ServiceError) -> Bool {
        guard let text = self[name] else { return defaultValue }
        switch text.trimmed.lowercased() {
        case "true": return true
        case "false": return false
        default: throw ServiceError.invalidParameter(name, reason: "expected true or false, got '\(text)'")
        }
    }

    /// `name` as an integer, or nil when missing.
    /// - Throws: ``ServiceError`` (400) when the value is not an integer.
    func int(_ name: String) throws(ServiceError) -> Int? {
        guard let text = self[name] else { return nil }
        guard let value = Int(text.trimmed) else { throw ServiceError.invalidParameter(name, reason: "expected an integer, got '\(text)'") }
        return value
    }

    /// `f=pjson` asks for indented JSON; anything else (or nothing) gets compact JSON.
    var wantsPrettyJSON: Bool { self["f"]?.trimmed.lowercased() == "pjson" }
}

extension String {
    /// The string without leading and trailing white space.
    var trimmed: String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice = slice.dropFirst() }
        while let last = slice.last, last.isWhitespace { slice = slice.dropLast() }
        return String(slice)
    }
}
