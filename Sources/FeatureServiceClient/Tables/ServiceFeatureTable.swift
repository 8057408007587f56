public import FeatureModel

/// One layer or table of a feature service, with the local edits not yet applied: the ArcGIS Maps SDKs'
/// service feature table.
///
/// Make features (``makeFeature(template:attributes:geometry:)``), add, update and delete them, relate and unrelate
/// them (``relate(_:to:relationshipId:)``): all in memory. ``applyEdits(batchSize:concurrency:retry:)`` sends them in
/// batches, in parallel; ``FeatureService/applyEdits(tables:)`` sends the edits of several tables in one atomic call.
/// Applied edits leave ``pendingEdits``; failed ones stay, with their error.
///
/// An actor because the pending edits are long-lived state that tasks share. Reads (queries, related queries,
/// validation) need no table state and are `nonisolated`. Get one from ``FeatureService/table(id:)``; each call
/// makes a new table with its own pending edits, so keep the one you edit.
///
/// ```swift
/// let species = try await service.table(id: 1)
/// var wolf = species.makeFeature(attributes: ["common_name": "Gray Wolf"])
/// wolf = try await species.relate(wolf, to: yellowstone, relationshipId: 0)
/// await species.add(wolf)
/// let results = try await species.applyEdits()
/// ```
public actor ServiceFeatureTable {
    /// Whether an applyEdits of this table is running.
    enum ApplyState: Sendable {
        case idle
        case applying
    }

    /// The service the table belongs to.
    public nonisolated let service: FeatureService
    /// The layer's or table's metadata: fields, domains, templates, relationships.
    public nonisolated let info: LayerInfo
    /// The client that talks to `…/FeatureServer/<id>`.
    public nonisolated let client: FeatureLayerClient

    var pending = PendingEditList()
    var applyState = ApplyState.idle
    /// For each feature key and relationship id, the origins (by key) a destination was related to in memory and
    /// not unrelated from: two or more mean a cardinality violation.
    var relatedOrigins: [String: [Int: [JSONValue]]] = [:]
    var contingentValuesCache: ContingentValuesDefinition?
    private var localCounter = 0

    /// A table over `info`, reached through `client`; use ``FeatureService/table(id:)``.
    init(service: FeatureService, info: LayerInfo, client: FeatureLayerClient) {
        self.service = service
        self.info = info
        self.client = client
    }

    /// The layer or table id.
    public nonisolated var tableId: Int { info.id }

    /// Whether local edits wait to be applied.
    public var hasLocalEdits: Bool { !pending.isEmpty }

    /// The local edits, in the order they were first made; many-to-many links (edits of the relationship table)
    /// included.
    public var pendingEdits: [PendingEdit] { pending.entries.map(\.edit) }

    /// The templates of the layer and of its subtypes.
    public nonisolated var templates: [FeatureTemplate] {
        (info.templates ?? []) + (info.types ?? []).flatMap { $0.templates ?? [] }
    }

    /// A new feature, not yet added: the fields' default values, overlaid by `template`'s prototype attributes,
    /// then by `attributes`; and a new client-assigned GlobalID when the layer has a GlobalID field.
    ///
    /// The GlobalID lets related features reference the feature before it exists in the service (deep insert).
    /// - Parameters:
    ///   - template: A template of ``templates``; nil uses the field defaults only.
    ///   - attributes: Values that override the defaults.
    ///   - geometry: The geometry (tables have none).
    public nonisolated func makeFeature(template: FeatureTemplate? = nil, attributes: [String: JSONValue] = [:], geometry: Geometry? = nil) -> Feature
    {
        var values: [String: JSONValue] = [:]
        for field in info.fields where field.type != .oid && field.type != .globalID {
            if let value = field.defaultValue, !value.isNull { values[field.name] = value }
        }
        for (name, value) in template?.prototype.attributes ?? [:] { values[info.field(named: name)?.name ?? name] = value }
        for (name, value) in attributes { values[info.field(named: name)?.name ?? name] = value }
        if let globalIdField = info.globalIdField { values[globalIdField] = .string(GlobalID.make()) }
        return Feature(attributes: values, geometry: geometry)
    }

    /// Adds `feature` to the pending edits; gives it a GlobalID first when the layer has a GlobalID field and it has
    /// none.
    /// - Returns: The feature as it will be sent.
    @discardableResult
    public func add(_ feature: Feature) -> Feature {
        var feature = feature
        if let globalIdField = info.globalIdField, globalId(of: feature) == nil { feature.attributes[globalIdField] = .string(GlobalID.make()) }
        let key = key(of: feature) ?? nextLocalKey()
        pending.add(feature, key: key, tableId: tableId)
        return feature
    }

    /// Records `feature`'s new values: a pending add stays an add of the new values; otherwise an update.
    /// - Throws: ``FeatureServiceError`` when the feature has neither a GlobalID nor an object ID.
    public func update(_ feature: Feature) throws {
        pending.update(feature, key: try requiredKey(of: feature, operation: "update"), tableId: tableId)
    }

    /// Records the deletion of `feature`; a pending add is simply dropped.
    /// - Throws: ``FeatureServiceError`` when the feature has neither a GlobalID nor an object ID.
    public func delete(_ feature: Feature) throws {
        let key = try requiredKey(of: feature, operation: "delete")
        pending.delete(feature, key: key, tableId: tableId)
        relatedOrigins[key] = nil
    }

    /// Drops every pending edit (nothing is sent).
    public func discardEdits() {
        pending = PendingEditList()
        relatedOrigins = [:]
    }

    // MARK: keys

    /// The feature's GlobalID in canonical form, when the layer has a GlobalID field and the feature a valid value.
    nonisolated func globalId(of feature: Feature) -> String? {
        info.globalIdField.flatMap { feature[attribute: $0]?.stringValue }.flatMap(GlobalID.normalized)
    }

    /// The feature's object ID, when it has one.
    nonisolated func objectId(of feature: Feature) -> Int64? {
        feature[attribute: info.objectIdField]?.intValue
    }

    /// The key of `feature`'s pending edit: `<table>/<GlobalID>` or `<table>/oid:<n>`.
    nonisolated func key(of feature: Feature) -> String? {
        if let globalId = globalId(of: feature) { return "\(tableId)/\(globalId)" }
        if let objectId = objectId(of: feature) { return "\(tableId)/oid:\(objectId)" }
        return nil
    }

    func requiredKey(of feature: Feature, operation: String) throws -> String {
        guard let key = key(of: feature) else {
            throw FeatureServiceError.invalidRequest(
                "the feature has neither a GlobalID nor an object ID (\(info.objectIdField)); query it from the service first",
                operation: operation, url: client.url)
        }
        return key
    }

    private func nextLocalKey() -> String {
        localCounter += 1
        return "\(tableId)/local:\(localCounter)"
    }
}
