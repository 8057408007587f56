import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport

/// Canned ArcGIS answers for component tests.
enum Fixtures {
    static let serviceURL = "http://service.test/arcgis/rest/services/parks/FeatureServer"

    static let serviceInfo = #"""
        {"currentVersion":11.1,"serviceDescription":"Parks","maxRecordCount":2000,"capabilities":"Create,Delete,Query,Update,Editing",
         "layers":[{"id":0,"name":"Parks","type":"Feature Layer","geometryType":"esriGeometryPoint"}],
         "tables":[{"id":1,"name":"Inspections","type":"Table"}]}
        """#

    static let parksLayer = #"""
        {"id":0,"name":"Parks","type":"Feature Layer","geometryType":"esriGeometryPoint","objectIdField":"OBJECTID",
         "globalIdField":"GlobalID","maxRecordCount":2000,
         "fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"GlobalID","type":"esriFieldTypeGlobalID"},
                   {"name":"NAME","type":"esriFieldTypeString","length":50,"nullable":false},
                   {"name":"CONDITION","type":"esriFieldTypeSmallInteger",
                    "domain":{"type":"codedValue","name":"Condition","codedValues":[{"name":"Good","code":1},{"name":"Poor","code":2}]}}],
         "relationships":[{"id":0,"name":"Park_Inspections","relatedTableId":1,"cardinality":"esriRelCardinalityOneToMany",
                           "role":"esriRelRoleOrigin","keyField":"GlobalID","composite":true}]}
        """#

    static let inspectionsTable = #"""
        {"id":1,"name":"Inspections","type":"Table","objectIdField":"OBJECTID","globalIdField":"GlobalID",
         "fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"ParkGUID","type":"esriFieldTypeGUID"}],
         "relationships":[{"id":0,"name":"Park_Inspections","relatedTableId":0,"cardinality":"esriRelCardinalityOneToMany",
                           "role":"esriRelRoleDestination","keyField":"ParkGUID","composite":true}]}
        """#

    /// Answers metadata GETs for the service, layer 0 and table 1; anything else is an ArcGIS 404 error.
    static func metadataHandler(_ request: HTTPRequest) -> HTTPResponse {
        switch request.path {
        case "/arcgis/rest/services/parks/FeatureServer": .json(serviceInfo)
        case "/arcgis/rest/services/parks/FeatureServer/0": .json(parksLayer)
        case "/arcgis/rest/services/parks/FeatureServer/1": .json(inspectionsTable)
        default: .json(#"{"error":{"code":404,"message":"Layer not found","details":[]}}"#)
        }
    }

    /// A feature set of rows `ids`, flagged as exceeding the transfer limit when `more`.
    static func featureSet(ids: some Sequence<Int>, more: Bool) -> String {
        let features = ids.map { #"{"attributes":{"OBJECTID":\#($0),"NAME":"Park \#($0)"},"geometry":{"x":\#($0),"y":1}}"# }
        return
            #"{"objectIdFieldName":"OBJECTID","geometryType":"esriGeometryPoint","features":[\#(features.joined(separator: ","))],"exceededTransferLimit":\#(more)}"#
    }
}
