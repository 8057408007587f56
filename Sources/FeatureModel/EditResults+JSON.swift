/// A wire type that can be read from a parsed ``JSONValue`` tree without `JSONDecoder`.
///
/// Hot answers (applyEdits results of large batches) are read this way by the client: ``JSONReader`` plus a direct
/// walk costs a fraction of `JSONDecoder`'s generic container machinery.
package protocol JSONValueDecodable {
    /// Reads the value.
    /// - Throws: ``WireDecodingError`` naming the path of the first member that has the wrong shape.
    init(json: JSONValue) throws(WireDecodingError)
}

/// A JSON answer of the wrong shape, with the path to the offending member.
package struct WireDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    package var path: String
    package var expected: String

    package init(path: String, expected: String) {
        self.path = path
        self.expected = expected
    }

    package var description: String { "expected \(expected) at \(path.isEmpty ? "the top level" : path)" }
}

extension EditResult: JSONValueDecodable {
    package init(json: JSONValue) throws(WireDecodingError) {
        try self.init(json: json, path: "")
    }

    init(json: JSONValue, path: String) throws(WireDecodingError) {
        try self.init(json: json, path: { path })
    }

    /// `path` is built only for an error: results come by the hundred per answer.
    init(json: JSONValue, path: () -> String) throws(WireDecodingError) {
        guard case .object(let members) = json else { throw WireDecodingError(path: path(), expected: "an edit result object") }
        guard let success = members["success"]?.boolValue else {
            throw WireDecodingError(path: path() + ".success", expected: "true or false")
        }
        var error: EditError?
        if let errorValue = members["error"], case .object(let fields) = errorValue {
            error = EditError(
                code: Int(fields["code"]?.intValue ?? 0),
                description: fields["description"]?.stringValue ?? fields["message"]?.stringValue ?? "",
                extendedCode: fields["extendedCode"]?.intValue)
        }
        self.init(
            objectId: members["objectId"]?.intValue, globalId: members["globalId"]?.stringValue, success: success, error: error)
    }
}

extension AttachmentEditResults {
    init(json: JSONValue, path: String) throws(WireDecodingError) {
        guard case .object(let members) = json else { throw WireDecodingError(path: path, expected: "an object") }
        self.init(
            addResults: try ApplyEditsResult.results(members["addResults"], path: path + ".addResults"),
            updateResults: try ApplyEditsResult.results(members["updateResults"], path: path + ".updateResults"),
            deleteResults: try ApplyEditsResult.results(members["deleteResults"], path: path + ".deleteResults"))
    }
}

extension ApplyEditsResult: JSONValueDecodable {
    package init(json: JSONValue) throws(WireDecodingError) {
        guard case .object(let members) = json else { throw WireDecodingError(path: "", expected: "an applyEdits result object") }
        self.init(
            id: members["id"]?.intValue.map { Int($0) },
            addResults: try Self.results(members["addResults"], path: "addResults"),
            updateResults: try Self.results(members["updateResults"], path: "updateResults"),
            deleteResults: try Self.results(members["deleteResults"], path: "deleteResults"),
            attachments: try members["attachments"].flatMap { value throws(WireDecodingError) in
                value.isNull ? nil : try AttachmentEditResults(json: value, path: "attachments")
            },
            editMoment: members["editMoment"]?.intValue)
    }

    static func results(_ value: JSONValue?, path: String) throws(WireDecodingError) -> [EditResult] {
        guard let value, !value.isNull else { return [] }
        guard case .array(let items) = value else { throw WireDecodingError(path: path, expected: "an array") }
        var results: [EditResult] = []
        results.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            results.append(try EditResult(json: item, path: { "\(path)[\(index)]" }))
        }
        return results
    }
}

extension JSONWriter {
    /// Writes an applyEdits answer; the three result arrays are always present.
    package mutating func write(_ result: ApplyEditsResult) {
        raw("{")
        if let id = result.id { raw("\"id\":\(id),") }
        write(results: result.addResults, key: "addResults")
        raw(",")
        write(results: result.updateResults, key: "updateResults")
        raw(",")
        write(results: result.deleteResults, key: "deleteResults")
        if let attachments = result.attachments {
            raw(",\"attachments\":{")
            write(results: attachments.addResults, key: "addResults")
            raw(",")
            write(results: attachments.updateResults, key: "updateResults")
            raw(",")
            write(results: attachments.deleteResults, key: "deleteResults")
            raw("}")
        }
        if let editMoment = result.editMoment { raw(",\"editMoment\":\(editMoment)") }
        raw("}")
    }

    /// Writes `"key":[result,…]`; `key` is one of the fixed ArcGIS member names.
    mutating func write(results: [EditResult], key: String) {
        raw("\"\(key)\":[")
        for (index, result) in results.enumerated() {
            if index > 0 { raw(",") }
            write(result)
        }
        raw("]")
    }

    /// Writes one edit result: `{"objectId":…,"globalId":…,"success":…,"error":{…}}`.
    package mutating func write(_ result: EditResult) {
        raw("{")
        if let objectId = result.objectId { raw("\"objectId\":\(objectId),") }
        if let globalId = result.globalId {
            raw("\"globalId\":")
            write(string: globalId)
            raw(",")
        }
        raw(result.success ? "\"success\":true" : "\"success\":false")
        if let error = result.error {
            raw(",\"error\":{\"code\":\(error.code),")
            if let extended = error.extendedCode { raw("\"extendedCode\":\(extended),") }
            raw("\"description\":")
            write(string: error.description)
            raw("}")
        }
        raw("}")
    }
}
