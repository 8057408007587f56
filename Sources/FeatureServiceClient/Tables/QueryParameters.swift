public import FeatureModel

/// What a ``ServiceFeatureTable`` query asks for: filters, output and paging, as the ArcGIS Maps SDKs' query
/// parameters, sent as `…/<id>/query` form fields.
///
/// Every parameter the local feature service supports has a property; a live service supports them all.
public struct QueryParameters: Sendable, Hashable {
    /// A spatial relationship of `spatialRel`.
    public enum SpatialRelationship: String, Sendable, Hashable {
        case intersects = "esriSpatialRelIntersects"
        case envelopeIntersects = "esriSpatialRelEnvelopeIntersects"
        case contains = "esriSpatialRelContains"
        case within = "esriSpatialRelWithin"
    }

    /// One `outStatistics` entry.
    public struct Statistic: Sendable, Hashable {
        /// `count`, `sum`, `min`, `max`, `avg`, `stddev` or `var`.
        public var statisticType: String
        /// The field (`*` with `count` counts rows).
        public var onStatisticField: String
        /// The output field's name; nil lets the service choose.
        public var outStatisticFieldName: String?

        /// A statistic.
        public init(_ statisticType: String, of field: String, as name: String? = nil) {
            self.statisticType = statisticType
            self.onStatisticField = field
            self.outStatisticFieldName = name
        }
    }

    /// `where`: a SQL-92 where clause; `1=1` (the default) matches every row.
    public var whereClause: String
    /// `objectIds`: only these rows.
    public var objectIds: [Int64]?
    /// `geometry` (an envelope) with `geometryType=esriGeometryEnvelope`; its spatial reference, or ``inSR``, says
    /// in which system it is given.
    public var envelope: Extent?
    /// `inSR`: the well-known id of ``envelope``'s spatial reference.
    public var inSR: Int?
    /// `spatialRel`, with ``envelope``. Default intersects.
    public var spatialRelationship: SpatialRelationship
    /// `outFields`. Default `*`.
    public var outFields: [String]
    /// `returnGeometry`. Default true.
    public var returnGeometry: Bool
    /// `outSR`: the well-known id of the output spatial reference.
    public var outSR: Int?
    /// `geometryPrecision`: decimals of output coordinates.
    public var geometryPrecision: Int?
    /// `orderByFields`, e.g. `["name ASC", "OBJECTID"]`; give one for stable pages.
    public var orderByFields: [String]
    /// `resultOffset`: where the first page starts.
    public var resultOffset: Int?
    /// `resultRecordCount`: rows per page; nil lets the service use its `maxRecordCount`.
    public var resultRecordCount: Int?
    /// `returnDistinctValues`: distinct combinations of ``outFields``.
    public var returnDistinctValues: Bool

    /// Parameters; every argument defaults to the documented property default.
    public init(
        whereClause: String = "1=1", objectIds: [Int64]? = nil, envelope: Extent? = nil, inSR: Int? = nil,
        spatialRelationship: SpatialRelationship = .intersects, outFields: [String] = ["*"], returnGeometry: Bool = true, outSR: Int? = nil,
        geometryPrecision: Int? = nil, orderByFields: [String] = [], resultOffset: Int? = nil, resultRecordCount: Int? = nil,
        returnDistinctValues: Bool = false
    ) {
        self.whereClause = whereClause
        self.objectIds = objectIds
        self.envelope = envelope
        self.inSR = inSR
        self.spatialRelationship = spatialRelationship
        self.outFields = outFields
        self.returnGeometry = returnGeometry
        self.outSR = outSR
        self.geometryPrecision = geometryPrecision
        self.orderByFields = orderByFields
        self.resultOffset = resultOffset
        self.resultRecordCount = resultRecordCount
        self.returnDistinctValues = returnDistinctValues
    }

    /// The filter fields: `where`, `objectIds` and the spatial filter.
    var filterFields: [FormField] {
        var fields = [FormField("where", whereClause)]
        if let objectIds { fields.append(FormField("objectIds", objectIds.map(String.init).joined(separator: ","))) }
        if let envelope {
            var writer = JSONWriter(capacity: 96)
            var box: [String: JSONValue] = [
                "xmin": .double(envelope.xmin), "ymin": .double(envelope.ymin), "xmax": .double(envelope.xmax), "ymax": .double(envelope.ymax),
            ]
            if let wkid = envelope.spatialReference?.wkid { box["spatialReference"] = ["wkid": .int(Int64(wkid))] }
            writer.write(object: box)
            fields += [
                FormField("geometry", writer.string), FormField("geometryType", "esriGeometryEnvelope"),
                FormField("spatialRel", spatialRelationship.rawValue),
            ]
            if let inSR { fields.append(FormField("inSR", String(inSR))) }
        }
        return fields
    }

    /// The form fields of a feature query (one page), `f=json` included.
    var formFields: [FormField] {
        var fields = [FormField("f", "json")] + filterFields
        fields.append(FormField("outFields", outFields.joined(separator: ",")))
        fields.append(FormField("returnGeometry", String(returnGeometry)))
        if let outSR { fields.append(FormField("outSR", String(outSR))) }
        if let geometryPrecision { fields.append(FormField("geometryPrecision", String(geometryPrecision))) }
        if !orderByFields.isEmpty { fields.append(FormField("orderByFields", orderByFields.joined(separator: ","))) }
        if let resultOffset { fields.append(FormField("resultOffset", String(resultOffset))) }
        if let resultRecordCount { fields.append(FormField("resultRecordCount", String(resultRecordCount))) }
        if returnDistinctValues { fields.append(FormField("returnDistinctValues", "true")) }
        return fields
    }
}
