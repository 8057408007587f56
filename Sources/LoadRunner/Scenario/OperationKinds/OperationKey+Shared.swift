/// The keys several kinds take, with one description that covers each use. A key only one kind takes lives in that
/// kind's file.
extension OperationKey {
    static let layer = OperationKey("layer", [
        "description": "Id of the layer or table the operation works on, as in …/FeatureServer/<id>, 0 to 100,000; default 0, and written beside `mix` it is the default for the entries that give none.",
        "$ref": "#/$defs/integer",
        "minimum": 0,
        "maximum": 100000,
        "default": 0,
        "examples": [0, 1],
    ])
    static let batchSize = OperationKey("batchSize", [
        "description": "Features (or object ids) per request, 1 to 10,000; default 1; for applyEdits it is the number of adds per request, allowed only when adds, updates and deletes are all left out.",
        "$ref": "#/$defs/integer",
        "minimum": 1,
        "maximum": 10000,
        "default": 1,
        "examples": [1, 100],
    ])
    static let rollbackOnFailure = OperationKey("rollbackOnFailure", [
        "description": "Whether the service undoes the whole request when one edit in it fails; default true.",
        "$ref": "#/$defs/boolean",
        "default": true,
    ])
    static let clientGlobalIds = OperationKey("clientGlobalIds", [
        "description": "Whether adds carry GlobalIDs made by featureload (useGlobalIds), so a retried add is recognised instead of applied twice; default false; the layer needs a GlobalID field.",
        "$ref": "#/$defs/boolean",
        "default": false,
    ])
    static let invalidRate = OperationKey("invalidRate", [
        "description": "applyEdits, addFeatures: share of generated adds, 0 to 1, made to break a contingent-value rule or a domain; client-side validation catches them, as the ArcGIS Maps SDKs do, and they are counted instead of sent; default 0.",
        "$ref": "#/$defs/fraction",
        "default": 0,
        "examples": [0.05],
    ])
    static let outFields = OperationKey("outFields", [
        "description": "Fields to return, as one comma-separated text (quote `\"*\"` in YAML), not a list; default * (all fields).",
        "$ref": "#/$defs/optionalText",
        "default": "*",
        "examples": ["*", "OBJECTID,NAME"],
    ])
    static let returnGeometry = OperationKey("returnGeometry", [
        "description": "Whether answers include geometries; default true.", "$ref": "#/$defs/boolean", "default": true,
    ])
    static let pageSize = OperationKey("pageSize", [
        "description": "Page through the whole answer, this many rows per request, 1 to 100,000; default none (one request per iteration).",
        "$ref": "#/$defs/integer",
        "minimum": 1,
        "maximum": 100000,
        "examples": [1000],
    ])
    static let relationship = OperationKey("relationship", [
        "description": "Id of the relationship in the layer's `relationships`, 0 to 100,000; required for relate and deepInsert, default 0 for queryRelatedRecords.",
        "$ref": "#/$defs/integer",
        "minimum": 0,
        "maximum": 100000,
        "examples": [0],
    ])
    static let size = OperationKey("size", [
        "description": "addAttachment, deepInsert: size of each generated attachment file, in bytes or with KB, MB or GB (powers of 1024), or `{ min, max }` for sizes spread evenly between the two; default 64KB.",
        "$ref": "#/$defs/sizeRange",
        "default": "64KB",
        "examples": ["64KB", "2MB", ["min": "10KB", "max": "2MB"]],
    ])
    static let contentType = OperationKey("contentType", [
        "description": "addAttachment, deepInsert: MIME type the generated attachments are sent as; default image/jpeg.",
        "$ref": "#/$defs/optionalText",
        "default": "image/jpeg",
        "examples": ["image/jpeg", "image/png", "application/pdf"],
    ])
    static let uploadThreshold = OperationKey("uploadThreshold", [
        "description": "addAttachment, deepInsert: files larger than this go first to the service's `uploads` endpoint and are then attached by upload id, in bytes or with KB, MB or GB; default 10MB.",
        "$ref": "#/$defs/size",
        "default": "10MB",
        "examples": ["10MB"],
    ])

    /// The keys of a generated attachment file.
    static let attachmentFileKeys = [size, contentType, uploadThreshold]
}
