/// The parameters of a layer query (`…/<id>/query`), as the client sends them.
public struct FeatureQuery: Sendable, Hashable {
    /// A SQL-92 where clause; `1=1` selects every row.
    public var whereClause: String
    /// Only these object IDs, combined with `whereClause`.
    public var objectIds: [Int64]?
    /// The fields to return; `["*"]` for all.
    public var outFields: [String]
    /// Whether features come with their geometry.
    public var returnGeometry: Bool
    /// Ask for a count instead of features.
    public var returnCountOnly: Bool
    /// Ask for object IDs instead of features.
    public var returnIdsOnly: Bool
    /// The sort order, such as `NAME ASC, OBJECTID`.
    public var orderByFields: String?
    /// Rows to skip, for paging.
    public var resultOffset: Int?
    /// The most rows to return, for paging.
    public var resultRecordCount: Int?
    /// The well-known ID of the coordinate system geometries come back in.
    public var outSR: Int?

    /// A query; every parameter defaults to all rows and all fields, with geometry.
    public init(
        whereClause: String = "1=1", objectIds: [Int64]? = nil, outFields: [String] = ["*"], returnGeometry: Bool = true,
        returnCountOnly: Bool = false, returnIdsOnly: Bool = false, orderByFields: String? = nil,
        resultOffset: Int? = nil, resultRecordCount: Int? = nil, outSR: Int? = nil
    ) {
        self.whereClause = whereClause
        self.objectIds = objectIds
        self.outFields = outFields
        self.returnGeometry = returnGeometry
        self.returnCountOnly = returnCountOnly
        self.returnIdsOnly = returnIdsOnly
        self.orderByFields = orderByFields
        self.resultOffset = resultOffset
        self.resultRecordCount = resultRecordCount
        self.outSR = outSR
    }

    /// The form fields of this query, `f=json` included.
    package var formFields: [FormField] {
        var fields = [FormField("f", "json"), FormField("where", whereClause)]
        if let objectIds { fields.append(FormField("objectIds", objectIds.map(String.init).joined(separator: ","))) }
        fields.append(FormField("outFields", outFields.joined(separator: ",")))
        fields.append(FormField("returnGeometry", String(returnGeometry)))
        if returnCountOnly { fields.append(FormField("returnCountOnly", "true")) }
        if returnIdsOnly { fields.append(FormField("returnIdsOnly", "true")) }
        if let orderByFields { fields.append(FormField("orderByFields", orderByFields)) }
        if let resultOffset { fields.append(FormField("resultOffset", String(resultOffset))) }
        if let resultRecordCount { fields.append(FormField("resultRecordCount", String(resultRecordCount))) }
        if let outSR { fields.append(FormField("outSR", String(outSR))) }
        return fields
    }
}

/// The edits of one layer-level applyEdits request.
public struct LayerEdits: Sendable, Hashable {
    /// Features to add.
    public var adds: [Feature]
    /// Features to update, each carrying its object ID (or its GlobalID with `useGlobalIds`).
    public var updates: [Feature]
    /// Object IDs to delete (or, with `useGlobalIds`, use ``deleteGlobalIds``).
    public var deletes: [Int64]
    /// GlobalIDs to delete, with `useGlobalIds`.
    public var deleteGlobalIds: [String]
    /// More adds, already written as JSON (see ``EncodedFeatures``); sent after ``adds``.
    package var encodedAdds: EncodedFeatures?

    /// The edits of one request; each kind defaults to none.
    /// - Parameters:
    ///   - adds: Features to add.
    ///   - updates: Features to update, each with its object ID (or GlobalID with `useGlobalIds`).
    ///   - deletes: Object IDs to delete.
    ///   - deleteGlobalIds: GlobalIDs to delete, with `useGlobalIds`.
    public init(adds: [Feature] = [], updates: [Feature] = [], deletes: [Int64] = [], deleteGlobalIds: [String] = []) {
        self.init(adds: adds, updates: updates, deletes: deletes, deleteGlobalIds: deleteGlobalIds, encodedAdds: nil)
    }

    /// The edits of one request with adds already written as JSON (no default, so it never competes with the
    /// public initializer).
    package init(adds: [Feature] = [], updates: [Feature] = [], deletes: [Int64] = [], deleteGlobalIds: [String] = [], encodedAdds: EncodedFeatures?)
    {
        self.encodedAdds = encodedAdds
        self.adds = adds
        self.updates = updates
        self.deletes = deletes
        self.deleteGlobalIds = deleteGlobalIds
    }

    /// The number of edits.
    public var count: Int { addCount + updates.count + deletes.count + deleteGlobalIds.count }

    /// The number of adds, encoded ones included.
    public var addCount: Int { adds.count + (encodedAdds?.count ?? 0) }
}

/// Features already written as a JSON array, for callers that generate them at volume (the load generator writes
/// a batch straight into bytes rather than building a ``Feature`` per add). Sent verbatim: the caller vouches that
/// the array holds exactly `count` features. The retried, exactly-once applyEdits takes them only with
/// ``globalIds``: the GlobalID each one carries, in order (a journal that planned them already knows).
///
/// The array comes as JSON text, or already percent-encoded as a form value (``init(formEncoded:count:globalIds:)``),
/// which the request body takes as it is. Two values are equal when they were given the same way with the same text.
package struct EncodedFeatures: Sendable, Hashable {
    package var count: Int
    /// The canonical GlobalID of each feature, in order, when each carries one in the layer's GlobalID field.
    package var globalIds: [String]?
    private var text: Text

    private enum Text: Sendable, Hashable {
        case json(String)
        case formEncoded([UInt8])
    }

    package init(json: String, count: Int, globalIds: [String]? = nil) {
        text = .json(json)
        self.count = count
        self.globalIds = globalIds
    }

    /// Features whose JSON array is given percent-encoded as an `application/x-www-form-urlencoded` value (the bytes
    /// after `adds=`).
    package init(formEncoded: [UInt8], count: Int, globalIds: [String]? = nil) {
        text = .formEncoded(formEncoded)
        self.count = count
        self.globalIds = globalIds
    }

    /// The JSON array.
    package var json: String {
        switch text {
        case .json(let json): json
        case .formEncoded(let bytes): FormEncoding.decodedValue(bytes)
        }
    }

    /// The array percent-encoded as a form value, when it was given so.
    package var formEncoded: [UInt8]? {
        if case .formEncoded(let bytes) = text { return bytes }
        return nil
    }
}

/// Options of an applyEdits request.
public struct ApplyEditsOptions: Sendable, Hashable {
    /// All or nothing (the ArcGIS default).
    public var rollbackOnFailure: Bool
    /// Keep client-assigned GlobalIDs on adds; find updates and deletes by GlobalID.
    public var useGlobalIds: Bool
    /// Ask the service to report when it applied the edits (``ApplyEditsResult/editMoment``).
    public var returnEditMoment: Bool

    /// Options; by default all or nothing, object IDs, no edit moment.
    public init(rollbackOnFailure: Bool = true, useGlobalIds: Bool = false, returnEditMoment: Bool = false) {
        self.rollbackOnFailure = rollbackOnFailure
        self.useGlobalIds = useGlobalIds
        self.returnEditMoment = returnEditMoment
    }
}

extension LayerEdits {
    /// The body of a layer-level applyEdits request: ``formFields(options:)`` form-encoded, except that adds given
    /// already encoded (``EncodedFeatures/init(formEncoded:count:globalIds:)``), and no others, are copied in as they are.
    package func formBody(options: ApplyEditsOptions) -> [UInt8] {
        guard adds.isEmpty, let encoded = encodedAdds, encoded.count > 0, let value = encoded.formEncoded else {
            return FormEncoding.encodedBytes(formFields(options: options))
        }
        if updates.isEmpty && deletes.isEmpty && deleteGlobalIds.isEmpty {
            return Self.addsBody(value, options: options)
        }
        var rest = self
        rest.encodedAdds = nil
        var fields = rest.formFields(options: options)
        // `f=json`, then the adds, then the rest, in the order of formFields(options:).
        let first = fields.removeFirst()
        var body = FormEncoding.encodedBytes([first])
        body.reserveCapacity(body.count + value.count + 160)
        body.append(contentsOf: "&adds=".utf8)
        body.append(contentsOf: value)
        if !fields.isEmpty {
            body.append(UInt8(ascii: "&"))
            body.append(contentsOf: FormEncoding.encodedBytes(fields))
        }
        return body
    }

    /// The body of an applyEdits request of encoded adds alone, the load generator's usual one: the bytes
    /// ``formFields(options:)`` would encode, written straight into one array (no fields, strings or second copy).
    private static func addsBody(_ adds: [UInt8], options: ApplyEditsOptions) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(adds.count + 80)
        body.append(contentsOf: "f=json&adds=".utf8)
        body.append(contentsOf: adds)
        body.append(contentsOf: (options.rollbackOnFailure ? "&rollbackOnFailure=true" : "&rollbackOnFailure=false").utf8)
        body.append(contentsOf: (options.useGlobalIds ? "&useGlobalIds=true" : "&useGlobalIds=false").utf8)
        if options.returnEditMoment { body.append(contentsOf: "&returnEditMoment=true".utf8) }
        return body
    }

    /// The form fields of a layer-level applyEdits request, `f=json` included. Non-finite doubles, which JSON cannot
    /// express, are sent as `null` (see ``JSONWriter``).
    package func formFields(options: ApplyEditsOptions) -> [FormField] {
        var fields = [FormField("f", "json")]
        switch (adds.isEmpty, encodedAdds.flatMap { $0.count > 0 ? $0.json : nil }) {
        case (true, nil): break
        case (false, nil): fields.append(FormField("adds", JSONWriter.string(features: adds)))
        case (true, let encoded?): fields.append(FormField("adds", encoded))
        case (false, let encoded?):
            // One array: the features, then the encoded ones.
            fields.append(FormField("adds", JSONWriter.string(features: adds).dropLast() + "," + encoded.dropFirst()))
        }
        if !updates.isEmpty { fields.append(FormField("updates", JSONWriter.string(features: updates))) }
        if !deletes.isEmpty {
            fields.append(FormField("deletes", deletes.map(String.init).joined(separator: ",")))
        } else if !deleteGlobalIds.isEmpty {
            var writer = JSONWriter()
            writer.write(.array(deleteGlobalIds.map(JSONValue.string)))
            fields.append(FormField("deletes", writer.string))
        }
        fields.append(FormField("rollbackOnFailure", String(options.rollbackOnFailure)))
        fields.append(FormField("useGlobalIds", String(options.useGlobalIds)))
        if options.returnEditMoment { fields.append(FormField("returnEditMoment", "true")) }
        return fields
    }
}
