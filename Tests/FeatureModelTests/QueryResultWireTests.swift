import FeatureModel
import Testing

@Suite struct QueryResultWireTests {
    @Test("the feature set of arcgis-rest.md §4 decodes and survives a round trip")
    func featureSet() throws {
        let json = #"""
            {"objectIdFieldName":"OBJECTID","globalIdFieldName":"GlobalID","geometryType":"esriGeometryPoint",
             "spatialReference":{"wkid":4326},"hasZ":false,"hasM":false,
             "fields":[{"name":"OBJECTID","type":"esriFieldTypeOID","alias":"OBJECTID"}],
             "features":[{"attributes":{"OBJECTID":1,"NAME":"Echo Park","AREA":12.5,"OPEN":null},"geometry":{"x":-118.1,"y":33.8}},
                         {"attributes":{"OBJECTID":2,"NAME":"Griffith"},"geometry":{"x":-118.3,"y":34.1,"spatialReference":{"wkid":4326}}}],
             "exceededTransferLimit":true}
            """#
        let set = try roundTrip(FeatureSet.self, json)
        #expect(set.objectIdFieldName == "OBJECTID")
        #expect(set.geometryType == .point)
        #expect(set.exceededTransferLimit == true)
        #expect(set.features.count == 2)
        let first = set.features[0]
        #expect(first[attribute: "objectid"] == .int(1))
        #expect(first[attribute: "AREA"] == .double(12.5))
        #expect(first[attribute: "OPEN"] == .null)
        #expect(first.geometry == .point(x: -118.1, y: 33.8))
        #expect(set.features[1].geometry == .point(x: -118.3, y: 34.1, spatialReference: SpatialReference(wkid: 4326)))
    }

    @Test("table rows without geometry and a feature set without exceededTransferLimit decode")
    func tableRows() throws {
        let set = try roundTrip(FeatureSet.self, #"{"objectIdFieldName":"OBJECTID","fields":[],"features":[{"attributes":{"OBJECTID":7}}]}"#)
        #expect(set.features.first?.geometry == nil)
        #expect(set.exceededTransferLimit == nil)
    }

    @Test(
        "every geometry kind decodes from its keys",
        arguments: [
            (#"{"x":1,"y":2,"z":3}"#, GeometryType.point),
            (#"{"points":[[1,2],[3,4]]}"#, .multipoint),
            (#"{"paths":[[[1,2],[3,4]]]}"#, .polyline),
            (#"{"rings":[[[0,0],[0,1],[1,1],[0,0]]],"spatialReference":{"wkid":4326}}"#, .polygon),
            (#"{"xmin":0,"ymin":0,"xmax":1,"ymax":1}"#, .envelope),
        ])
    func geometries(json: String, type: GeometryType) throws {
        #expect(try roundTrip(Geometry.self, json).geometryType == type)
    }

    @Test("count and ids answers decode, with null ids meaning none")
    func countAndIds() throws {
        #expect(try roundTrip(CountResult.self, #"{"count":48}"#).count == 48)
        let ids = try roundTrip(ObjectIdsResult.self, #"{"objectIdFieldName":"OBJECTID","objectIds":[1,2,9007199254740993]}"#)
        #expect(ids.objectIds == [1, 2, 9_007_199_254_740_993])
        #expect(try roundTrip(ObjectIdsResult.self, #"{"objectIdFieldName":"FID","objectIds":null}"#).objectIds == [])
    }
}
