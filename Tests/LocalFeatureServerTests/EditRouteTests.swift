import Testing

@testable import LocalFeatureServer

/// The new resource paths, recognised without a server.
@Suite struct EditRouteTests {
    static let base = "/arcgis/rest/services/Parks/FeatureServer"

    @Test(
        "service- and layer-level edit, relationship and contingent-value paths are recognised case-insensitively",
        arguments: [
            ("/applyEdits", FeatureServerRoute.serviceApplyEdits("Parks")),
            ("/RELATIONSHIPS/", .relationships("Parks")),
            ("/queryContingentValues", .queryContingentValues("Parks")),
            ("/1/queryRelatedRecords", .queryRelatedRecords(service: "Parks", layer: 1)),
            ("/0/contingentValues", .contingentValues(service: "Parks", layer: 0)),
            ("/0/addFeatures", .editOperation(service: "Parks", layer: 0, operation: .addFeatures)),
            ("/0/UpdateFeatures", .editOperation(service: "Parks", layer: 0, operation: .updateFeatures)),
            ("/2/deletefeatures", .editOperation(service: "Parks", layer: 2, operation: .deleteFeatures)),
            ("/0", .layer(service: "Parks", layer: 0)),
        ])
    func recognised(_ suffix: String, _ route: FeatureServerRoute) {
        #expect(FeatureServerRoute(path: Self.base + suffix) == route)
        #expect(FeatureServerRoute(path: Self.base + suffix)?.serviceName == "Parks")
    }

    @Test("unknown operations and extra segments are not routes", arguments: ["/0/nope", "/relationships/0", "/0/addFeatures/1", "/-1/query", "/x"])
    func unknown(_ suffix: String) {
        #expect(FeatureServerRoute(path: Self.base + suffix) == nil)
    }
}
