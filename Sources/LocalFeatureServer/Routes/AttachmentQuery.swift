import FeatureModel

/// A checked `queryAttachments` request (arcgis-rest.md §3): which features, which of their attachments, and the
/// answer's form.
///
/// The store selects the features (``parents``, ``objectIds``, ``globalIds``) and lists their attachments; the
/// attachment filters and the paging are applied by ``answer(_:)``, a pure function, so counts and pages always
/// agree.
struct AttachmentQuery: Sendable, Hashable {
    /// What the query answers with.
    enum Output: Sendable, Hashable {
        /// Attachment infos grouped by feature: `offset` attachments skipped, at most `limit` returned.
        case infos(offset: Int, limit: Int)
        /// `attachmentGroups[].count`; paging is ignored.
        case counts
    }

    /// The compiled `definitionExpression` on the features (`1=1` when absent).
    var parents: SQLFragment
    var objectIds: [Int64]?
    /// Parent GlobalIDs (`globalIds`), normalized.
    var globalIds: [String]?
    /// `attachmentTypes`: full media types (`image/jpeg`) or top-level types (`image`), any case.
    var attachmentTypes: [String] = []
    /// `keywords`: an attachment matches when one of its comma-separated keywords equals one of these (any case).
    var keywords: [String] = []
    /// `size`: the smallest and largest size in bytes.
    var size: ClosedRange<Int64>?
    var output: Output

    /// Reads a queryAttachments request on `layer`.
    ///
    /// `objectIds`, `globalIds` (comma lists), `definitionExpression` (the query dialect), `attachmentTypes`,
    /// `keywords`, `size` (`min,max`), `returnCountOnly`, `resultOffset`/`resultRecordCount` (default and cap
    /// `maxRecordCount`). `attachmentsDefinitionExpression` is not supported: a non-blank one is refused with 400,
    /// rather than silently ignored. Other parameters are ignored.
    /// - Parameters:
    ///   - rejectedWhere: Called with the reason when the definition expression is rejected (for the log).
    /// - Throws: ``ServiceError`` (400) naming the first invalid parameter.
    static func parse(
        _ parameters: RequestParameters, layer: LayerSchema, maxRecordCount: Int, rejectedWhere: (WhereClauseError) -> Void = { _ in }
    ) throws(ServiceError) -> AttachmentQuery {
        let parents: SQLFragment
        do {
            parents = try WhereCompiler(fields: layer.fields).compile(parameters["definitionExpression"] ?? "1=1")
        } catch {
            rejectedWhere(error)
            throw ServiceError(
                ArcGISError(code: 400, message: ServiceError.unableToComplete, details: ["'definitionExpression' parameter is invalid"]))
        }
        if parameters["attachmentsDefinitionExpression"] != nil {
            throw ServiceError.invalidParameter(
                "attachmentsDefinitionExpression", reason: "not supported by this server; use attachmentTypes, keywords or size")
        }
        let output: Output
        if try parameters.bool("returnCountOnly", default: false) {
            output = .counts
        } else {
            let (offset, limit) = try parameters.page(maxRecordCount: maxRecordCount)
            output = .infos(offset: offset, limit: limit)
        }
        var query = AttachmentQuery(parents: parents, output: output)
        if let text = parameters["objectIds"] { query.objectIds = try LayerQuery.parseObjectIds(text) }
        if let text = parameters["globalIds"] {
            var globalIds: [String] = []
            for item in list(text) {
                guard let normalized = GlobalID.normalized(item) else {
                    throw ServiceError.invalidParameter("globalIds", reason: "'\(item)' is not a GUID")
                }
                globalIds.append(normalized)
            }
            query.globalIds = globalIds
        }
        query.attachmentTypes = list(parameters["attachmentTypes"] ?? "").map { $0.lowercased() }
        query.keywords = list(parameters["keywords"] ?? "").map { $0.lowercased() }
        if let text = parameters["size"] {
            let bounds = list(text).compactMap { Int64($0) }
            guard bounds.count == 2, bounds[0] >= 0, bounds[0] <= bounds[1] else {
                throw ServiceError.invalidParameter("size", reason: "expected 'min,max' in bytes, got '\(text)'")
            }
            query.size = bounds[0]...bounds[1]
        }
        return query
    }

    /// Whether `info` passes the attachment filters (types, keywords, size).
    func matches(_ info: AttachmentInfo) -> Bool {
        if !attachmentTypes.isEmpty {
            let type = info.contentType.lowercased()
            let topLevel = type.split(separator: "/").first.map(String.init) ?? type
            guard attachmentTypes.contains(where: { $0 == type || $0 == topLevel }) else { return false }
        }
        if !keywords.isEmpty {
            let own = Set(Self.list(info.keywords ?? "").map { $0.lowercased() })
            guard keywords.contains(where: own.contains) else { return false }
        }
        if let size, !size.contains(info.size) { return false }
        return true
    }

    /// The answer for `rows` (the selected features' attachments, ordered by parent then id): filtered, paged over
    /// attachments, grouped by feature; features left with no attachment are not listed.
    func answer(_ rows: [AttachmentRow]) -> AttachmentGroupsResponse {
        let matching = rows.filter { matches($0.info) }
        switch output {
        case .counts:
            var groups: [AttachmentGroup] = []
            for row in matching {
                if groups.last?.parentObjectId == row.parentObjectId {
                    groups[groups.count - 1].count! += 1
                } else {
                    groups.append(AttachmentGroup(parentObjectId: row.parentObjectId, parentGlobalId: row.parentGlobalId, count: 1))
                }
            }
            return AttachmentGroupsResponse(attachmentGroups: groups)
        case .infos(let offset, let limit):
            let page = matching.dropFirst(offset).prefix(limit)
            var groups: [AttachmentGroup] = []
            for row in page {
                if groups.last?.parentObjectId == row.parentObjectId {
                    groups[groups.count - 1].attachmentInfos!.append(row.info)
                } else {
                    groups.append(
                        AttachmentGroup(parentObjectId: row.parentObjectId, parentGlobalId: row.parentGlobalId, attachmentInfos: [row.info]))
                }
            }
            let exceeded = matching.count > offset + page.count
            return AttachmentGroupsResponse(attachmentGroups: groups, exceededTransferLimit: exceeded ? true : nil)
        }
    }

    /// The non-empty, trimmed items of a comma-separated list.
    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { String($0).trimmed }.filter { !$0.isEmpty }
    }
}
