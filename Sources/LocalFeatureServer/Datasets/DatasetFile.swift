import FeatureModel

/// Reads a dataset file: the JSON description of one feature service (layers, tables, fields, domains,
/// relationships, contingent values, seed rows, a row generator).
///
/// ```json
/// {"name": "customerorders", "serviceDescription": "Customers and their orders.", "maxRecordCount": 2000,
///  "layers": [
///   {"id": 0, "name": "Customers", "type": "Table", "objectIdField": "OBJECTID", "globalIdField": "GlobalID",
///    "fields": [{"name": "OBJECTID", "type": "esriFieldTypeOID", "nullable": false, "editable": false},
///               {"name": "GlobalID", "type": "esriFieldTypeGlobalID", "length": 38, "nullable": false, "editable": false},
///               {"name": "name", "type": "esriFieldTypeString", "length": 64, "nullable": false}],
///    "relationships": [{"id": 0, "name": "Customer_Orders", "relatedTableId": 1, "role": "esriRelRoleOrigin",
///                       "cardinality": "esriRelCardinalityOneToMany", "keyField": "GlobalID", "composite": false}],
///    "seedRows": [{"attributes": {"GlobalID": "{…}", "name": "Ada"}}],
///    "generator": {"rows": 100, "seed": 1}}]}
/// ```
/// Layer keys are those of the layer document (`…/FeatureServer/<id>`) plus `seedRows`, `generator` and
/// `contingentValues` (see ``ContingentFieldGroup``). Every problem is reported, each with its JSON path and a
/// fix, not just the first.
enum DatasetFile {
    static let serviceKeys = ["name", "serviceDescription", "maxRecordCount", "capabilities", "spatialReference", "extent", "layers"]
    static let layerKeys = [
        "id", "name", "type", "geometryType", "description", "displayField", "objectIdField", "globalIdField", "typeIdField", "fields",
        "types", "templates", "relationships", "hasAttachments", "capabilities", "maxRecordCount", "extent", "spatialReference",
        "contingentValues", "seedRows", "generator",
    ]

    /// The service described by `text`, or every problem found in it.
    /// - Returns: The definition, or the issues (never empty) when the file is not valid.
    package static func read(_ text: String) -> Result<ServiceDefinition, DatasetFileError> {
        let json: JSONValue
        do {
            json = try JSONReader.parse(text)
        } catch {
            let (line, column) = position(of: error.offset, in: text)
            return .failure(
                DatasetFileError(issues: [
                    DatasetIssue(
                        path: "$", problem: "not valid JSON: \(error.reason) at line \(line), column \(column)", fix: "correct the JSON syntax there")
                ])
            )
        }
        var issues = DatasetIssues()
        let definition = read(json, issues: &issues)
        if let definition, issues.all.isEmpty {
            DatasetValidator.validate(definition, issues: &issues)
        }
        guard let definition, issues.all.isEmpty else { return .failure(DatasetFileError(issues: issues.all)) }
        return .success(definition)
    }

    private static func read(_ json: JSONValue, issues: inout DatasetIssues) -> ServiceDefinition? {
        guard let members = issues.object(json, "$") else { return nil }
        issues.checkKeys(members, known: serviceKeys, path: "$")
        let name = issues.string(members, "name", "$", required: true)
        if let name, !name.isEmpty, !name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) {
            issues.add("name", "'\(name)' is not usable in a URL", fix: "use letters, digits, '_' and '-' only")
        }
        let description = issues.string(members, "serviceDescription", "$") ?? ""
        let maxRecordCount = issues.int(members, "maxRecordCount", "$", minimum: 1)
        let capabilities = issues.string(members, "capabilities", "$")
        let spatialReference = members["spatialReference"].flatMap { decode(SpatialReference.self, $0, "spatialReference", &issues) }
        let extent = members["extent"].flatMap { decode(Extent.self, $0, "extent", &issues) }
        var layers: [LayerDefinition] = []
        if let items = issues.array(members["layers"], "layers") {
            if items.isEmpty { issues.add("layers", "empty", fix: "describe at least one layer or table") }
            for (index, item) in items.enumerated() {
                if let layer = readLayer(item, path: "layers[\(index)]", issues: &issues) { layers.append(layer) }
            }
        }
        guard let name else { return nil }
        return ServiceDefinition(
            name: name, serviceDescription: description, layers: layers, maxRecordCount: maxRecordCount, capabilities: capabilities,
            spatialReference: spatialReference, extent: extent
        )
    }

    private static func readLayer(_ json: JSONValue, path: String, issues: inout DatasetIssues) -> LayerDefinition? {
        guard let members = issues.object(json, path) else { return nil }
        issues.checkKeys(members, known: layerKeys, path: path)
        let id = issues.int(members, "id", path, required: true, minimum: 0)
        let name = issues.string(members, "name", path, required: true)
        var geometryType: GeometryType?
        if let text = issues.string(members, "geometryType", path) {
            geometryType = GeometryType(rawValue: text)
            if geometryType == nil {
                issues.add(
                    "\(path).geometryType", "unknown geometry type '\(text)'",
                    fix: "use one of \(GeometryType.allCases.map(\.rawValue).joined(separator: ", ")), or leave it out for a table")
            }
        }
        let type = issues.string(members, "type", path) ?? (members["geometryType"] == nil ? "Table" : "Feature Layer")
        if type != "Table" && type != "Feature Layer" {
            issues.add("\(path).type", "unknown layer type '\(type)'", fix: "use \"Feature Layer\" or \"Table\"")
        } else if type == "Feature Layer" && members["geometryType"] == nil {
            issues.add(
                "\(path).geometryType", "missing for a feature layer",
                fix: "add \"geometryType\": \"esriGeometryPoint\" (or another), or make it a \"Table\"")
        } else if type == "Table" && members["geometryType"] != nil {
            issues.add("\(path).geometryType", "a table has no geometry", fix: "remove geometryType or make the type \"Feature Layer\"")
        }
        let objectIdField = issues.string(members, "objectIdField", path) ?? "OBJECTID"
        let globalIdField = issues.string(members, "globalIdField", path)
        var fields: [Field] = []
        if let items = issues.array(members["fields"], "\(path).fields") {
            for (index, item) in items.enumerated() {
                if let field = readField(item, path: "\(path).fields[\(index)]", issues: &issues) { fields.append(field) }
            }
        }
        var relationships: [RelationshipInfo] = []
        if let value = members["relationships"], let items = issues.array(value, "\(path).relationships") {
            for (index, item) in items.enumerated() {
                if let relationship = readRelationship(item, path: "\(path).relationships[\(index)]", issues: &issues) {
                    relationships.append(relationship)
                }
            }
        }
        let hasAttachments = issues.bool(members, "hasAttachments", path) ?? false
        let capabilities = issues.string(members, "capabilities", path) ?? "Create,Delete,Query,Update,Editing"
        let maxRecordCount = issues.int(members, "maxRecordCount", path, minimum: 1) ?? 2000
        var contingentValues: [ContingentFieldGroup]?
        if let value = members["contingentValues"] {
            contingentValues = readContingentValues(value, path: "\(path).contingentValues", issues: &issues)
        }
        var seedRows: [Feature] = []
        if let value = members["seedRows"], let items = issues.array(value, "\(path).seedRows") {
            for (index, item) in items.enumerated() {
                if let feature = decode(Feature.self, item, "\(path).seedRows[\(index)]", &issues) { seedRows.append(feature) }
            }
        }
        var generator: RowGeneratorSettings?
        if let value = members["generator"], let settings = issues.object(value, "\(path).generator") {
            issues.checkKeys(settings, known: ["rows", "seed"], path: "\(path).generator")
            let rows = issues.int(settings, "rows", "\(path).generator", minimum: 0) ?? 0
            let seed = issues.int(settings, "seed", "\(path).generator", minimum: 0) ?? 1
            generator = RowGeneratorSettings(rows: rows, seed: UInt64(seed))
        }
        guard let id, let name else { return nil }
        var info = LayerInfo(
            id: id, name: name, type: type, geometryType: geometryType, objectIdField: objectIdField, globalIdField: globalIdField,
            fields: fields, relationships: relationships, hasAttachments: hasAttachments, capabilities: capabilities,
            maxRecordCount: maxRecordCount
        )
        info.description = issues.string(members, "description", path)
        if let displayField = issues.string(members, "displayField", path) { info.displayField = displayField }
        info.typeIdField = issues.string(members, "typeIdField", path)
        info.types = members["types"].flatMap { decode([FeatureSubtype].self, $0, "\(path).types", &issues) }
        info.templates = members["templates"].flatMap { decode([FeatureTemplate].self, $0, "\(path).templates", &issues) }
        info.extent = members["extent"].flatMap { decode(Extent.self, $0, "\(path).extent", &issues) }
        if let value = members["spatialReference"] {
            info.spatialReference = decode(SpatialReference.self, value, "\(path).spatialReference", &issues)
        }
        info.hasContingentValuesDefinition = contingentValues?.isEmpty == false
        return LayerDefinition(info: info, seedRows: seedRows, contingentValues: contingentValues, generator: generator)
    }

    /// Decodes a wire value through its `Codable` conformance, reporting a failure at `path`.
    static func decode<T: Decodable>(_ type: T.Type, _ json: JSONValue, _ path: String, _ issues: inout DatasetIssues) -> T? {
        do {
            return try WireJSON.decode(type, from: WireJSON.string(json))
        } catch let DecodingError.dataCorrupted(context) {
            issues.add(pathOf(path, context.codingPath), context.debugDescription, fix: "see the ArcGIS JSON shape of \(type)")
        } catch let DecodingError.keyNotFound(key, context) {
            issues.add(pathOf(path, context.codingPath + [key]), "missing", fix: "add it (see the ArcGIS JSON shape of \(type))")
        } catch let DecodingError.typeMismatch(expected, context) {
            issues.add(pathOf(path, context.codingPath), "expected \(expected)", fix: "see the ArcGIS JSON shape of \(type)")
        } catch {
            issues.add(path, "\(error)", fix: "see the ArcGIS JSON shape of \(type)")
        }
        return nil
    }

    private static func pathOf(_ base: String, _ codingPath: [any CodingKey]) -> String {
        codingPath.reduce(base) { path, key in key.intValue.map { "\(path)[\($0)]" } ?? "\(path).\(key.stringValue)" }
    }

    /// The 1-based line and column of byte `offset` in `text`.
    static func position(of offset: Int, in text: String) -> (Int, Int) {
        var line = 1
        var column = 1
        for byte in text.utf8.prefix(offset) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return (line, column)
    }
}

/// Everything wrong with one dataset file.
package struct DatasetFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The problems, in document order; never empty.
    package var issues: [DatasetIssue]

    package var description: String { issues.map(\.description).joined(separator: "\n") }
}
