import FeatureModel

/// `query`: a where clause (with `{objectId}` drawn from the layer), counts, ids, an envelope, paging.
package struct QuerySettings: OperationKindSettings {
    /// The where clause; `{objectId}` is replaced by an object ID drawn from the layer.
    package var whereClause: String
    /// The fields to return.
    package var outFields: [String]
    /// Whether answers include geometries.
    package var returnGeometry: Bool
    /// Ask only for the number of matching features.
    package var returnCountOnly: Bool
    /// Ask only for the matching object IDs.
    package var returnIdsOnly: Bool
    /// A random envelope covering this fraction (0…1] of the layer's extent in each direction.
    package var envelope: Double?
    /// Page through every page of the answer, this many rows per request.
    package var pageSize: Int?

    package init(
        whereClause: String = "1=1", outFields: [String] = ["*"], returnGeometry: Bool = true, returnCountOnly: Bool = false,
        returnIdsOnly: Bool = false, envelope: Double? = nil, pageSize: Int? = nil
    ) {
        self.whereClause = whereClause
        self.outFields = outFields
        self.returnGeometry = returnGeometry
        self.returnCountOnly = returnCountOnly
        self.returnIdsOnly = returnIdsOnly
        self.envelope = envelope
        self.pageSize = pageSize
    }

    /// The kind's defaults.
    package init() { self.init(whereClause: "1=1") }

    static let kind = OperationKind.query
    static let summary = "query: a where clause, optionally a random envelope, counts, ids or paging"
    static let keys: [any ScenarioKeyDeclaration] = [
        ScenarioKey.whereClause, ScenarioKey.outFields, ScenarioKey.returnGeometry, ScenarioKey.returnCountOnly, ScenarioKey.returnIdsOnly,
        ScenarioKey.envelope, ScenarioKey.pageSize,
    ]
    static let schemaRules: [SchemaValue] = [
        [
            "not": [
                "required": ["returnCountOnly", "returnIdsOnly"],
                "properties": ["returnCountOnly": ["$ref": "#/$defs/true"], "returnIdsOnly": ["$ref": "#/$defs/true"]],
            ],
            "errorMessage": "returnCountOnly and returnIdsOnly cannot both be true: keep one of them",
        ]
    ]

    static func read(_ input: MappingInput, _ reader: inout NodeReader) -> Self {
        var settings = Self()
        settings.whereClause = input.read(.whereClause, &reader)
        settings.outFields = input.read(.outFields, &reader)
        settings.returnGeometry = input.read(.returnGeometry, &reader)
        settings.returnCountOnly = input.read(.returnCountOnly, &reader)
        settings.returnIdsOnly = input.read(.returnIdsOnly, &reader)
        if settings.returnCountOnly && settings.returnIdsOnly {
            input.issue("returnIdsOnly", problem: "cannot go with returnCountOnly", fix: "keep one of them", &reader)
        }
        settings.envelope = input.read(.envelope, &reader)
        settings.pageSize = input.read(.pageSize, &reader)
        return settings
    }

    package var settings: OperationSettings { .query(self) }
    package var editsPerIteration: Int { 0 }
    var existingFeatures: (key: String, verb: String)? { whereClause.contains("{objectId}") ? ("where", "use") : nil }

    func problems(_ check: OperationCheck) -> [String] {
        guard envelope != nil, check.layer.geometryType == nil else { return [] }
        return ["\(check.field).envelope: \(check.layer.name) is a table without geometry. Fix: remove envelope or pick a layer"]
    }

    func operation(_ spec: OperationSpec, environment: OperationEnvironment) -> any LoadOperation {
        QueryOperation(settings: self, environment: environment)
    }
}

extension ScenarioKey where Value == String {
    static var whereClause: Self {
        Self(
            "where", .text, default: "1=1", examples: ["1=1", "OBJECTID = {objectId}"],
            "query: the where clause, in which `{objectId}` is replaced by an object id drawn from the layer; default 1=1 (every feature).")
    }
}

extension ScenarioKey where Value == Bool {
    static var returnCountOnly: Self {
        Self(
            "returnCountOnly", .boolean, default: false,
            "query: ask only for the number of matching features; default false; not together with returnIdsOnly.")
    }
    static var returnIdsOnly: Self {
        Self(
            "returnIdsOnly", .boolean, default: false,
            "query: ask only for the matching object ids; default false; not together with returnCountOnly.")
    }
}

extension ScenarioKey where Value == Double? {
    static var envelope: Self {
        Self(
            "envelope", .fraction(aboveZero: true), examples: [0.1],
            "query: also filter by a random envelope covering this fraction (above 0, at most 1) of the layer's extent in each direction; default none (no spatial filter); layers only, not tables."
        )
    }
}
