import FeatureModel

/// One entry of `outStatistics`: `{"statisticType":"max","onStatisticField":"OBJECTID","outStatisticFieldName":"THE_MAX"}`.
///
/// `statisticType` is one of `count`, `sum`, `min`, `max`, `avg`, `stddev`, `var` (case-insensitive). `count` counts
/// non-null values (`onStatisticField` `*` counts rows); `sum`, `avg`, `stddev` and `var` need a numeric field;
/// `stddev` and `var` are the sample statistics (n − 1), null for fewer than two values. A missing
/// `outStatisticFieldName` becomes `<statisticType>_<field>`.
struct OutStatistic: Sendable, Hashable {
    /// The statistic types ArcGIS names.
    enum Kind: String, Sendable, Hashable, CaseIterable {
        case count
        case sum
        case min
        case max
        case avg
        case stddev
        case variance = "var"
    }

    var kind: Kind
    /// Index into ``LayerSchema/fields``; nil for `count` of `*`.
    var field: Int?
    /// The attribute name of the result.
    var name: String

    /// The SQL aggregate over the filtered rows (column names only; no bindings).
    func sql(layer: LayerSchema) -> String {
        guard let field else { return "COUNT(*)" }
        let column = layer.column(field)
        let real = "CAST(\(column) AS REAL)"
        let variance = "((SUM(\(real) * \(real)) - SUM(\(real)) * SUM(\(real)) / COUNT(\(column))) / (COUNT(\(column)) - 1))"
        switch kind {
        case .count: return "COUNT(\(column))"
        case .sum: return "SUM(\(column))"
        case .min: return "MIN(\(column))"
        case .max: return "MAX(\(column))"
        case .avg: return "AVG(\(column))"
        case .variance: return "max(\(variance), 0.0)"
        case .stddev: return "sqrt(max(\(variance), 0.0))"
        }
    }

    /// The field describing the result in the answer's `fields`.
    func outputField(layer: LayerSchema) -> Field {
        let type: FieldType
        switch kind {
        case .count: type = .integer
        case .sum, .avg, .stddev, .variance: type = .double
        case .min, .max:
            let source = field.map { layer.fields[$0].type } ?? .integer
            type = source == .oid ? .integer : source
        }
        return Field(name: name, type: type, alias: name, nullable: nil, editable: nil)
    }
}

/// A statistics query: `outStatistics`, `groupByFieldsForStatistics` and the order of the result rows.
struct StatisticsQuery: Sendable, Hashable {
    /// Whether `name` can name an output field: a letter or underscore, then letters, digits or underscores, at most
    /// 64 in all (quotes, spaces and dots would break the answer's field list and the SQL alias).
    static func isFieldName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 64,
            first == UInt8(ascii: "_") || (first | 0x20 >= UInt8(ascii: "a") && first | 0x20 <= UInt8(ascii: "z"))
        else {
            return false
        }
        return bytes.allSatisfy { byte in
            byte == UInt8(ascii: "_") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
        }
    }

    /// One `orderByFields` term over the result: a group field or a statistic, by its output name.
    struct Order: Sendable, Hashable {
        var name: String
        var descending: Bool
    }

    var statistics: [OutStatistic]
    /// Indexes into ``LayerSchema/fields``.
    var groupBy: [Int]
    /// The requested order; without one, rows follow the group fields ascending.
    var orderBy: [Order]

    /// Reads `outStatistics` (a JSON array), `groupByFieldsForStatistics` (comma list) and `orderByFields` terms.
    /// - Throws: ``ServiceError`` (400) naming `outStatistics`, `groupByFieldsForStatistics` or `orderByFields`.
    static func parse(
        _ text: String, groupBy groupText: String?, orderBy: [(name: String, descending: Bool)], layer: LayerSchema
    ) throws(ServiceError) -> StatisticsQuery {
        func invalid(_ reason: String) -> ServiceError { ServiceError.invalidParameter("outStatistics", reason: reason) }
        guard case .array(let items)? = try? JSONReader.parse(text), !items.isEmpty else {
            throw invalid("expected a JSON array of {statisticType, onStatisticField, outStatisticFieldName}")
        }
        var groupBy: [Int] = []
        for item in (groupText ?? "").split(separator: ",") {
            let name = String(item).trimmed
            guard !name.isEmpty else { continue }
            guard let index = layer.fieldIndex(named: name) else {
                throw ServiceError.invalidParameter("groupByFieldsForStatistics", reason: "Field '\(name)' does not exist.")
            }
            if !groupBy.contains(index) { groupBy.append(index) }
        }
        var names = Set(groupBy.map { layer.fields[$0].name.lowercased() })
        var statistics: [OutStatistic] = []
        for item in items {
            guard case .object(let members) = item else { throw invalid("each statistic must be a JSON object") }
            func member(_ key: String) -> String? {
                members.first { $0.key.lowercased() == key.lowercased() }?.value.stringValue?.trimmed
            }
            guard let typeName = member("statisticType"), let kind = OutStatistic.Kind(rawValue: typeName.lowercased()) else {
                throw invalid("statisticType must be count, sum, min, max, avg, stddev or var")
            }
            guard let fieldName = member("onStatisticField"), !fieldName.isEmpty else { throw invalid("onStatisticField is required") }
            var field: Int?
            if fieldName != "*" || kind != .count {
                guard let index = layer.fieldIndex(named: fieldName) else { throw invalid("Field '\(fieldName)' does not exist.") }
                let type = layer.fields[index].type
                if [.sum, .avg, .stddev, .variance].contains(kind), !(type.isNumeric && type != .date) {
                    throw invalid("\(kind.rawValue) needs a numeric field; '\(layer.fields[index].name)' is \(type)")
                }
                field = index
            }
            let name =
                member("outStatisticFieldName").flatMap { $0.isEmpty ? nil : $0 } ?? "\(kind.rawValue)_\(fieldName == "*" ? "count" : fieldName)"
            guard Self.isFieldName(name) else {
                throw invalid(
                    "outStatisticFieldName '\(name)' must be a field name: a letter or underscore, then letters, digits or underscores (at most 64)")
            }
            guard names.insert(name.lowercased()).inserted else { throw invalid("output field name '\(name)' is used twice") }
            statistics.append(OutStatistic(kind: kind, field: field, name: name))
        }
        var order: [Order] = []
        for term in orderBy {
            if let statistic = statistics.first(where: { $0.name.lowercased() == term.name.lowercased() }) {
                order.append(Order(name: statistic.name, descending: term.descending))
            } else if let index = layer.fieldIndex(named: term.name), groupBy.contains(index) {
                order.append(Order(name: layer.fields[index].name, descending: term.descending))
            } else {
                throw ServiceError.invalidParameter(
                    "orderByFields", reason: "'\(term.name)' is neither a statistic nor a groupByFieldsForStatistics field")
            }
        }
        return StatisticsQuery(statistics: statistics, groupBy: groupBy, orderBy: order)
    }

    /// The answer's `fields`: the group fields, then the statistics.
    func outputFields(layer: LayerSchema) -> [Field] {
        groupBy.map { index in
            let field = layer.fields[index]
            return Field(name: field.name, type: field.type, alias: field.alias, length: field.length, nullable: nil, editable: nil)
        } + statistics.map { $0.outputField(layer: layer) }
    }
}
