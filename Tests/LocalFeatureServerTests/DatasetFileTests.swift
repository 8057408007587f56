import FeatureModel
import Foundation
import Testing

@testable import LocalFeatureServer

/// Dataset files: parsing, validation with every problem at once, built-in copies, name resolution, generator.
@Suite struct DatasetFileTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let datasetDirectory = packageRoot.appendingPathComponent("Scenarios/datasets")

    @Test("every shipped dataset file reads without problems and is built in unchanged", arguments: shippedDatasets)
    func shipped(_ name: String) throws {
        let text = try String(contentsOf: Self.datasetDirectory.appendingPathComponent("\(name).json"), encoding: .utf8)
        let embedded = try #require(EmbeddedDatasets.files.first { $0.name == "\(name).json" }, "run sh Scenarios/datasets/embed.sh")
        let same = try JSONReader.parse(embedded.text) == JSONReader.parse(text)
        #expect(same, "\(name).json changed: run sh Scenarios/datasets/embed.sh")
        let definition = try DatasetFile.read(text).get()
        #expect(definition.name == name)
        #expect(ServiceDefinition.builtIn(named: name) == definition)
        #expect(definition.layers.allSatisfy { !$0.seedRows.isEmpty })
    }

    @Test("a malformed file reports every problem with its JSON path and a fix")
    func malformed() throws {
        let text = """
            {"name": "bad name", "layers": [
              {"id": 0, "name": "A", "type": "Feature Layer", "objectIdField": "OBJECTID", "feilds": [],
               "fields": [{"name": "OBJECTID", "type": "esriFieldTypeOID"}, {"name": "kind", "type": "esriFieldTypeStrng"},
                          {"name": "size", "type": "esriFieldTypeInteger", "domain": {"type": "range", "name": "S", "range": [5]}}]},
              {"id": 1, "name": "B", "fields": [{"name": "OBJECTID", "type": "esriFieldTypeOID"}],
               "relationships": [{"id": 0, "relatedTableId": 9, "cardinality": "esriRelCardinalityOneToSome", "role": "esriRelRoleOrigin", "keyField": "OBJECTID"}]}
            ]}
            """
        let error = try #require(DatasetFile.read(text).failure)
        let paths = error.issues.map(\.path)
        #expect(paths.contains("name"))
        #expect(paths.contains("layers[0].feilds"))
        #expect(paths.contains("layers[0].geometryType"))
        #expect(paths.contains("layers[0].fields[1].type"))
        #expect(paths.contains("layers[0].fields[2].domain.range"))
        #expect(paths.contains("layers[1].relationships[0].cardinality"))
        #expect(error.issues.allSatisfy { !$0.fix.isEmpty })
        let typeIssue = try #require(error.issues.first { $0.path == "layers[0].fields[1].type" })
        #expect(typeIssue.problem.contains("esriFieldTypeStrng") && typeIssue.fix.contains("esriFieldTypeString"))
    }

    @Test("semantic problems: one-sided relationships, unknown key fields, contingent values outside the domain, bad seed rows")
    func semantic() throws {
        var layer = try #require(ServiceDefinition.builtIn(named: "birdnests")).layers[0]
        layer.contingentValues?[0].contingencies.append([.code("Hatched"), .code(9)])
        layer.seedRows.append(Feature(attributes: ["species": "XXXX", "nope": 1]))
        layer.info.relationships = [
            RelationshipInfo(id: 3, name: "R", relatedTableId: 0, cardinality: .oneToMany, role: .origin, keyField: "gone", composite: false)
        ]
        var issues = DatasetIssues()
        DatasetValidator.validate(ServiceDefinition(name: "x", serviceDescription: "", layers: [layer]), issues: &issues)
        let paths = issues.all.map(\.path)
        #expect(paths.contains("layers[0].contingentValues.fieldGroups[0].contingencies[6][0]"))
        #expect(paths.contains("layers[0].contingentValues.fieldGroups[0].contingencies[6][1]"))
        #expect(paths.contains("layers[0].seedRows[10].attributes.species"))
        #expect(paths.contains("layers[0].seedRows[10].attributes.nope"))
        #expect(paths.contains("layers[0].relationships[0].keyField"))
        #expect(paths.contains("layers[0].relationships[0]"))  // layer 0 does not list it as destination
    }

    @Test("invalid JSON is reported with line and column")
    func syntax() throws {
        let error = try #require(DatasetFile.read("{\n  \"name\": \"x\",\n  \"layers\": [,]\n}").failure)
        #expect(error.issues.count == 1)
        #expect(error.issues[0].problem.contains("line 3"))
    }

    @Test("names resolve to Scenarios/datasets first, then the built-ins; paths load files; unknown names list the known ones")
    func resolution() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: directory.path("Scenarios/datasets"), withIntermediateDirectories: true)
        var custom = try String(contentsOf: Self.datasetDirectory.appendingPathComponent("ownerscars.json"), encoding: .utf8)
        custom = custom.replacingOccurrences(of: "\"name\": \"ownerscars\"", with: "\"name\": \"parks\"")
        try custom.write(toFile: directory.path("Scenarios/datasets/parks.json"), atomically: true, encoding: .utf8)
        try custom.write(toFile: directory.path("mine.json"), atomically: true, encoding: .utf8)

        let local = try DatasetCatalog.resolve("parks", workingDirectory: directory.url.path)
        #expect(local.layers.map(\.info.name) == ["Owners", "Cars"])  // the working directory's file wins
        let builtIn = try DatasetCatalog.resolve("birdnests", workingDirectory: directory.url.path)
        #expect(builtIn == ServiceDefinition.builtIn(named: "birdnests"))
        let path = try DatasetCatalog.resolve("mine.json", workingDirectory: directory.url.path)
        #expect(path.layers.count == 2)
        do {
            _ = try DatasetCatalog.resolve("nope", workingDirectory: directory.url.path)
            Issue.record("an unknown name resolved")
        } catch let error as LocalFeatureServerError {
            #expect(error.isUnknownDataset && "\(error)".contains("birdnests"))
        }
        try "{\"name\": 3}".write(toFile: directory.path("broken.json"), atomically: true, encoding: .utf8)
        do {
            _ = try DatasetCatalog.resolve("broken.json", workingDirectory: directory.url.path)
            Issue.record("a broken file resolved")
        } catch let error as LocalFeatureServerError {
            #expect(error.datasetIssues.map(\.path).contains("name"))
            #expect(error.datasetIssues.map(\.path).contains("layers"))
            #expect("\(error)".contains("broken.json: name: expected a string"))
        }
    }

    @Test("the generator is deterministic, keeps restrictive contingent values and points foreign keys at existing origins")
    func generator() throws {
        for name in shippedDatasets {
            let base = try #require(ServiceDefinition.builtIn(named: name))
            let first = RowGenerator.addingGeneratedRows(to: base, rowsOverride: 50)
            #expect(first == RowGenerator.addingGeneratedRows(to: base, rowsOverride: 50), "\(name)")
            for (layer, original) in zip(first.layers, base.layers) {
                #expect(layer.seedRows.count == original.seedRows.count + 50, "\(name) \(layer.info.name)")
                for group in layer.contingentValues ?? [] where group.restrictive {
                    #expect(layer.seedRows.allSatisfy { group.isSatisfied(by: $0.attributes) }, "\(name) \(group.name)")
                }
                let schema = LayerSchema(info: layer.info, serviceLayers: [])
                for row in layer.seedRows.suffix(50) {
                    for (field, value) in row.attributes {
                        let index = try #require(schema.fieldIndex(named: field))
                        #expect((try? AttributeCoercion.coerce(value, for: schema.fields[index]).get()) != nil, "\(name).\(field) = \(value)")
                    }
                }
            }
        }
        let orders = RowGenerator.addingGeneratedRows(to: try #require(ServiceDefinition.builtIn(named: "customerorders")), rowsOverride: 200)
        let customers = Set(orders.layers[0].seedRows.compactMap { $0.attributes["GlobalID"] })
        let keys = orders.layers[1].seedRows.suffix(200).map { $0.attributes["customer_guid"] ?? .null }
        #expect(keys.contains(.null))  // zero-or-one: some orders have no customer
        #expect(keys.filter { !$0.isNull }.allSatisfy { customers.contains($0) })
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
