import FeatureModel
import Testing

@Suite struct LayerMetadataWireTests {
    /// A layer as `…/FeatureServer/0?f=json` describes it, with domains and a composite relationship.
    static let siteLayer = #"""
        {"currentVersion":11.1,"id":0,"name":"Sites","type":"Feature Layer","displayField":"NAME","description":"",
         "geometryType":"esriGeometryPoint","hasZ":false,"hasM":false,
         "extent":{"xmin":-118.5,"ymin":33.7,"xmax":-118.1,"ymax":34.1,"spatialReference":{"wkid":4326,"latestWkid":4326}},
         "spatialReference":{"wkid":4326,"latestWkid":4326},
         "objectIdField":"OBJECTID","globalIdField":"GlobalID","typeIdField":null,
         "fields":[
           {"name":"OBJECTID","type":"esriFieldTypeOID","alias":"OBJECTID","domain":null,"editable":false,"nullable":false,"length":4},
           {"name":"GlobalID","type":"esriFieldTypeGlobalID","alias":"GlobalID","editable":false,"nullable":false,"length":38},
           {"name":"NAME","type":"esriFieldTypeString","alias":"Name","editable":true,"nullable":false,"length":50,"defaultValue":null},
           {"name":"CONDITION","type":"esriFieldTypeSmallInteger","alias":"Condition","editable":true,"nullable":true,
            "domain":{"type":"codedValue","name":"Condition","codedValues":[{"name":"Good","code":1},{"name":"Poor","code":2}]}},
           {"name":"DEPTH","type":"esriFieldTypeDouble","alias":"Depth","editable":true,"nullable":true,
            "domain":{"type":"range","name":"Depth","range":[1,10000]},"defaultValue":2.5},
           {"name":"SURFACE","type":"esriFieldTypeString","alias":"Surface","length":10,
            "domain":{"type":"codedValue","name":"Surface","codedValues":[{"name":"Asphalt","code":"ASP"},{"name":"Gravel","code":"GRV"}]}}
         ],
         "templates":[{"name":"Site","description":"","prototype":{"attributes":{"CONDITION":1}},"drawingTool":"esriFeatureEditToolPoint"}],
         "relationships":[
           {"id":0,"name":"Site_Inspections","relatedTableId":1,"cardinality":"esriRelCardinalityOneToMany",
            "role":"esriRelRoleOrigin","keyField":"GlobalID","composite":true,"catalogID":"{0A1B2C3D-0000-0000-0000-000000000000}"},
           {"id":1,"name":"Site_Owners","relatedTableId":2,"cardinality":"esriRelCardinalityManyToMany",
            "role":"esriRelRoleOrigin","keyField":"GlobalID","composite":false,
            "relationshipTableId":5,"keyFieldInRelationshipTable":"SiteGUID"}
         ],
         "hasAttachments":true,"capabilities":"Create,Delete,Query,Update,Editing","maxRecordCount":2000,
         "standardMaxRecordCount":4000,"supportedQueryFormats":"JSON, geoJSON","supportsRollbackOnFailureParameter":true,
         "supportsApplyEditsWithGlobalIds":true,"supportsAdvancedQueries":true,"supportsStatistics":true,
         "useStandardizedQueries":true,"allowGeometryUpdates":true,"hasContingentValuesDefinition":false,
         "advancedQueryCapabilities":{"supportsPagination":true,"supportsOrderBy":true,"supportsDistinct":true,
           "supportsQueryRelatedPagination":true,"supportsAdvancedQueryRelated":false,"supportsSqlExpression":true},
         "advancedEditingCapabilities":{"supportsAsyncApplyEdits":false}}
        """#

    @Test("layer metadata decodes fields, domains and relationships and survives a round trip")
    func layerMetadata() throws {
        let layer = try roundTrip(LayerInfo.self, Self.siteLayer)
        #expect(layer.id == 0)
        #expect(layer.name == "Sites")
        #expect(!layer.isTable)
        #expect(layer.geometryType == .point)
        #expect(layer.objectIdField == "OBJECTID")
        #expect(layer.globalIdField == "GlobalID")
        #expect(layer.fields.count == 6)
        #expect(layer.field(named: "objectid")?.type == .oid)
        #expect(layer.field(named: "NAME")?.length == 50)
        #expect(layer.field(named: "NAME")?.isNullable == false)
        #expect(layer.field(named: "SURFACE")?.isNullable == true, "a missing nullable key means nullable")
        #expect(layer.field(named: "DEPTH")?.defaultValue == .double(2.5))

        let condition = try #require(layer.field(named: "CONDITION")?.domain)
        guard case .codedValue(let name, let codes) = condition else {
            Issue.record("CONDITION should carry a coded-value domain, got \(condition)")
            return
        }
        #expect(name == "Condition")
        #expect(codes.map(\.code) == [1, 2])
        #expect(condition.contains(2))
        #expect(!condition.contains(3))

        let depth = try #require(layer.field(named: "DEPTH")?.domain)
        #expect(depth == .range(name: "Depth", minValue: 1, maxValue: 10000))
        #expect(depth.contains(.int(500)))
        #expect(!depth.contains(.double(0.5)))

        let surface = try #require(layer.field(named: "SURFACE")?.domain)
        #expect(surface.contains("GRV"))
        #expect(!surface.contains("XXX"))

        let relationships = try #require(layer.relationships)
        #expect(relationships.count == 2)
        let inspections = try #require(layer.relationship(id: 0))
        #expect(inspections.cardinality == .oneToMany)
        #expect(inspections.role == .origin)
        #expect(inspections.composite)
        #expect(inspections.relationshipTableId == nil)
        let owners = try #require(layer.relationship(id: 1))
        #expect(owners.cardinality == .manyToMany)
        #expect(owners.relationshipTableId == 5)
        #expect(owners.keyFieldInRelationshipTable == "SiteGUID")

        #expect(layer.templates?.first?.prototype.attributes["CONDITION"] == 1)
        #expect(layer.advancedQueryCapabilities?.supportsPagination == true)
        #expect(layer.advancedQueryCapabilities?.supportsAdvancedQueryRelated == false)
        #expect(layer.maxRecordCount == 2000)
    }

    @Test("a table has no geometry type and reports isTable")
    func table() throws {
        let json = #"""
            {"id":1,"name":"Inspections","type":"Table","objectIdField":"OBJECTID","globalIdField":"GlobalID",
             "fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"SiteGUID","type":"esriFieldTypeGUID"},
                       {"name":"Score","type":"esriFieldTypeBigInteger"},{"name":"When","type":"esriFieldTypeDateOnly"}],
             "relationships":[{"id":0,"name":"Site_Inspections","relatedTableId":0,"cardinality":"esriRelCardinalityOneToMany",
               "role":"esriRelRoleDestination","keyField":"SiteGUID","composite":true}]}
            """#
        let table = try roundTrip(LayerInfo.self, json)
        #expect(table.isTable)
        #expect(table.geometryType == nil)
        #expect(table.field(named: "SiteGUID")?.type == .guid)
        #expect(table.field(named: "Score")?.type.isInteger == true)
        #expect(table.field(named: "When")?.type.rawValue == "esriFieldTypeDateOnly", "unknown field types are kept")
        #expect(table.relationship(id: 0)?.role == .destination)
    }

    @Test("service metadata decodes its layers and tables")
    func serviceMetadata() throws {
        let json = #"""
            {"currentVersion":11.1,"serviceDescription":"Parks","hasVersionedData":false,"maxRecordCount":2000,
             "supportedQueryFormats":"JSON","capabilities":"Create,Delete,Query,Update,Editing,Uploads",
             "spatialReference":{"wkid":102100,"latestWkid":3857},
             "fullExtent":{"xmin":0,"ymin":0,"xmax":10,"ymax":10,"spatialReference":{"wkid":102100}},
             "allowGeometryUpdates":true,"units":"esriMeters","syncEnabled":false,"supportsRelationshipsResource":true,
             "layers":[{"id":0,"name":"Sites","type":"Feature Layer","geometryType":"esriGeometryPoint"}],
             "tables":[{"id":1,"name":"Inspections","type":"Table"}],"someFutureKey":{"x":1}}
            """#
        let service = try roundTrip(ServiceInfo.self, json)
        #expect(service.layers == [LayerSummary(id: 0, name: "Sites", type: "Feature Layer", geometryType: .point)])
        #expect(service.tables.map(\.id) == [1])
        #expect(service.spatialReference == .webMercator)
        #expect(service.capabilities?.contains("Uploads") == true)
        #expect(service.supportsRelationshipsResource == true)
    }
}
