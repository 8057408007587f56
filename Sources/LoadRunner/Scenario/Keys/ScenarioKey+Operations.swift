// The keys several operation kinds take, each with one description that covers each use. A key only one kind takes
// is declared in that kind's file.

extension ScenarioKey where Value == Int {
    static var layer: Self {
        Self(
            "layer", .integer(0...100_000), default: 0, examples: [0, 1],
            "Id of the layer or table the operation works on, as in …/FeatureServer/<id>, 0 to 100,000; default 0, and written beside `mix` it is the default for the entries that give none."
        )
    }
    static var batchSize: Self {
        Self(
            "batchSize", .integer(1...10_000), default: 1, examples: [1, 100],
            "Features (or object ids) per request, 1 to 10,000; default 1; for applyEdits it is the number of adds per request, allowed only when adds, updates and deletes are all left out."
        )
    }
}

extension ScenarioKey where Value == Int? {
    static var pageSize: Self {
        Self(
            "pageSize", .integer(1...100_000), examples: [1000],
            "Page through the whole answer, this many rows per request, 1 to 100,000; default none (one request per iteration).")
    }
    static var relationship: Self {
        Self(
            "relationship", .integer(0...100_000), examples: [0],
            "Id of the relationship in the layer's `relationships`, 0 to 100,000; required for relate and deepInsert, default 0 for queryRelatedRecords."
        )
    }
}

extension ScenarioKey where Value == Bool {
    static var rollbackOnFailure: Self {
        Self("rollbackOnFailure", .boolean, default: true, "Whether the service undoes the whole request when one edit in it fails; default true.")
    }
    static var clientGlobalIds: Self {
        Self(
            "clientGlobalIds", .boolean, default: false,
            "Whether adds carry GlobalIDs made by featureload (useGlobalIds), so a retried add is recognised instead of applied twice; default false; the layer needs a GlobalID field."
        )
    }
    static var returnGeometry: Self { Self("returnGeometry", .boolean, default: true, "Whether answers include geometries; default true.") }
}

extension ScenarioKey where Value == Double {
    static var invalidRate: Self {
        Self(
            "invalidRate", .fraction(), default: 0, examples: [0.05],
            "applyEdits, addFeatures: share of generated adds, 0 to 1, made to break a contingent-value rule or a domain; client-side validation catches them, as the ArcGIS Maps SDKs do, and they are counted instead of sent; default 0."
        )
    }
}

extension ScenarioKey where Value == [String] {
    static var outFields: Self {
        Self(
            "outFields", .commaSeparated, default: ["*"], examples: [["*"], ["OBJECTID", "NAME"]],
            "Fields to return, as one comma-separated text (quote `\"*\"` in YAML), not a list; default * (all fields).")
    }
}

extension ScenarioKey where Value == OperationSpec.SizeRange {
    static var size: Self {
        Self(
            "size", .sizeRange, default: AttachmentFiles.defaultSize,
            examples: [OperationSpec.SizeRange(64 << 10), OperationSpec.SizeRange(2 << 20), OperationSpec.SizeRange(10 << 10, 2 << 20)],
            "addAttachment, deepInsert: size of each generated attachment file, in bytes or with KB, MB or GB (powers of 1024), or `{ min, max }` for sizes spread evenly between the two; default 64KB."
        )
    }
}

extension ScenarioKey where Value == String {
    static var contentType: Self {
        Self(
            "contentType", .text, default: AttachmentFiles.defaultContentType, examples: ["image/jpeg", "image/png", "application/pdf"],
            "addAttachment, deepInsert: MIME type the generated attachments are sent as; default image/jpeg.")
    }
}

extension ScenarioKey where Value == Int64 {
    static var uploadThreshold: Self {
        Self(
            "uploadThreshold", .size, default: AttachmentFiles.defaultUploadThreshold, examples: [10 << 20],
            "addAttachment, deepInsert: files larger than this go first to the service's `uploads` endpoint and are then attached by upload id, in bytes or with KB, MB or GB; default 10MB."
        )
    }
}

/// The keys of a generated attachment file.
let attachmentFileKeys: [any ScenarioKeyDeclaration] = [ScenarioKey.size, ScenarioKey.contentType, ScenarioKey.uploadThreshold]

// The keys of a mix entry besides its operation's.

extension ScenarioKey where Value == String? {
    static var mixEntryName: Self {
        Self(
            "name", .name, examples: ["small-batches"],
            "Label of this entry in metrics and in threshold filters (`{operation:<name>}`), unique in the mix; default the operation's name.")
    }
}

extension ScenarioKey where Value == Int {
    static var weight: Self {
        Self("weight", .integer(1...1_000_000), default: 1, examples: [3], "Relative share of iterations this entry runs, 1 to 1,000,000; default 1.")
    }
}
