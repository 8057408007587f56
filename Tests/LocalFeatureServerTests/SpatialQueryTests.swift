import FeatureModel
import Testing

@testable import LocalFeatureServer

/// The envelope filter, `inSR`/`outSR` reprojection and `geometryPrecision`.
@Suite struct SpatialQueryTests {
    @Test("Web Mercator projection matches the EPSG:3857 reference values and round-trips")
    func projection() {
        let equator = QuerySpatialReference.project(longitude: 0, latitude: 0)
        #expect(equator.x == 0 && abs(equator.y) < 1e-9)
        let corner = QuerySpatialReference.project(longitude: 180, latitude: 45)
        #expect(abs(corner.x - 20_037_508.342789244) < 1e-6)
        #expect(abs(corner.y - 5_621_521.486192066) < 1e-6)
        for (longitude, latitude) in [(-110.5885, 44.4280), (151.2093, -33.8688), (0.0001, 85.0), (-179.9, -80.0)] {
            let projected = QuerySpatialReference.project(longitude: longitude, latitude: latitude)
            let back = QuerySpatialReference.unproject(x: projected.x, y: projected.y)
            #expect(abs(back.longitude - longitude) < 1e-9 && abs(back.latitude - latitude) < 1e-9)
        }
        let pole = QuerySpatialReference.project(longitude: 0, latitude: 90)
        #expect(pole.y.isFinite && abs(pole.y - 20_037_508.342789244) < 1e-3)
    }

    @Test(
        "spatial references parse from numbers and JSON",
        arguments: [
            ("4326", QuerySpatialReference.wgs84), ("102100", .webMercator), ("3857", .webMercator), ("102113", .webMercator),
            (#"{"wkid":4326}"#, .wgs84), (#"{"wkid":102100,"latestWkid":3857}"#, .webMercator),
        ])
    func spatialReferences(_ text: String, _ expected: QuerySpatialReference) {
        #expect(QuerySpatialReference(parameter: text) == expected)
    }

    @Test("unsupported spatial references are not guessed", arguments: ["2154", "27700", "{}", "{\"wkt\":\"GEOGCS\"}", "abc"])
    func unsupportedReferences(_ text: String) {
        #expect(QuerySpatialReference(parameter: text) == nil)
    }

    static let west: [Int64] = [1, 2, 3, 4, 7, 10, 11]

    @Test("an envelope selects the points inside it, in either spatial reference and every accepted form", .timeLimit(.minutes(1)))
    func envelope() async throws {
        let low = QuerySpatialReference.project(longitude: -125, latitude: 30)
        let high = QuerySpatialReference.project(longitude: -100, latitude: 45)
        let mercator = "\(low.x),\(low.y),\(high.x),\(high.y)"
        let forms: [[FormField]] = [
            [FormField("geometry", "-125,30,-100,45")],
            [FormField("geometry", "-100,45,-125,30")],
            [FormField("geometry", #"{"xmin":-125,"ymin":30,"xmax":-100,"ymax":45}"#), FormField("geometryType", "esriGeometryEnvelope")],
            [FormField("geometry", #"{"xmin":-125,"ymin":30,"xmax":-100,"ymax":45,"spatialReference":{"wkid":4326}}"#)],
            [FormField("geometry", mercator), FormField("inSR", "102100")],
            [FormField("geometry", mercator), FormField("inSR", #"{"wkid":3857}"#)],
            [FormField("geometry", #"{"xmin":\#(low.x),"ymin":\#(low.y),"xmax":\#(high.x),"ymax":\#(high.y),"spatialReference":{"wkid":102100}}"#)],
            [FormField("geometry", "-125,30,-100,45"), FormField("spatialRel", "esriSpatialRelEnvelopeIntersects")],
            [FormField("geometry", "-125,30,-100,45"), FormField("spatialRel", "esriSpatialRelContains")],
        ]
        try await withStore { store in
            for form in forms {
                let ids = try await store.answer(layerId: 0, form + [FormField("returnIdsOnly", "true")])
                #expect(ids == .objectIds(Self.west), "\(form)")
                let count = try await store.answer(layerId: 0, form + [FormField("returnCountOnly", "true"), FormField("resultRecordCount", "1")])
                #expect(count == .count(Self.west.count), "\(form)")
            }
            // Within: the filter inside the feature; a box is inside no point.
            let within = try await store.answer(
                layerId: 0,
                [FormField("geometry", "-125,30,-100,45"), FormField("spatialRel", "esriSpatialRelWithin"), FormField("returnIdsOnly", "true")])
            #expect(within == .objectIds([]))
            let filtered = try await store.answer(
                layerId: 0, [FormField("geometry", "-125,30,-100,45"), FormField("where", "state = 'CA'"), FormField("returnIdsOnly", "true")]
            )
            #expect(filtered == .objectIds([2, 11]))
            let edge = try await store.answer(
                layerId: 0, [FormField("geometry", "-68.2733,44.3386,-68.2733,44.3386"), FormField("returnIdsOnly", "true")])
            #expect(edge == .objectIds([6]))  // a degenerate envelope on Acadia: edges count
            let stats = try await store.answer(
                layerId: 0,
                [
                    FormField("geometry", "-125,30,-100,45"),
                    FormField("outStatistics", #"[{"statisticType":"count","onStatisticField":"OBJECTID","outStatisticFieldName":"n"}]"#),
                ]
            )
            #expect(stats == .statistics([Feature(attributes: ["n": 7])]))
        }
    }

    @Test("outSR 3857 reprojects output points exactly; geometryPrecision rounds", .timeLimit(.minutes(1)))
    func output() async throws {
        try await withStore { store in
            let mercator = try await store.answer(layerId: 0, [FormField("objectIds", "1"), FormField("outSR", "102100")])
            guard case .features(let features, _) = mercator, case .point(let x, let y, _, _)? = features.first?.geometry else {
                Issue.record("expected a point, got \(mercator)")
                return
            }
            #expect(abs(x - -12_310_655.507591935) < 1e-6)
            #expect(abs(y - 5_531_916.841954162) < 1e-6)
            let rounded = try await store.answer(
                layerId: 0, [FormField("objectIds", "1"), FormField("outSR", "4326"), FormField("geometryPrecision", "2")])
            guard case .features(let roundedFeatures, _) = rounded else {
                Issue.record("expected features")
                return
            }
            #expect(roundedFeatures.first?.geometry == .point(x: -110.59, y: 44.43))
            let both = try await store.answer(
                layerId: 0, [FormField("objectIds", "1"), FormField("outSR", "3857"), FormField("geometryPrecision", "0")])
            guard case .features(let bothFeatures, _) = both else {
                Issue.record("expected features")
                return
            }
            #expect(bothFeatures.first?.geometry == .point(x: -12_310_656, y: 5_531_917))
        }
    }

    struct Unsupported: Sendable, CustomStringConvertible {
        var layerId: Int
        var fields: [FormField]
        var parameter: String
        var description: String { fields.map { "\($0.name)=\($0.value)" }.joined(separator: "&") }
    }

    static let unsupported: [Unsupported] = [
        Unsupported(layerId: 0, fields: [FormField("geometry", #"{"rings":[[[0,0],[1,0],[0,0]]]}"#)], parameter: "geometry"),
        Unsupported(layerId: 0, fields: [FormField("geometry", #"{"paths":[[[0,0]]]}"#)], parameter: "geometry"),
        Unsupported(layerId: 0, fields: [FormField("geometry", #"{"rings":[]}"#)], parameter: "geometry"),
        Unsupported(layerId: 0, fields: [FormField("geometry", #"{"curveRings":[[[0,0],[1,0],[1,1],[0,0]]]}"#)], parameter: "geometry"),
        Unsupported(layerId: 0, fields: [FormField("geometry", "-110,44,45")], parameter: "geometry"),
        Unsupported(
            layerId: 0, fields: [FormField("geometry", "-110,44"), FormField("geometryType", "esriGeometryMultiPatch")], parameter: "geometryType"),
        Unsupported(layerId: 0, fields: [FormField("geometry", "-110,44,x,45")], parameter: "geometry"),
        Unsupported(layerId: 0, fields: [FormField("geometry", #"{"xmin":"a","ymin":0,"xmax":1,"ymax":1}"#)], parameter: "geometry"),
        Unsupported(layerId: 0, fields: [FormField("geometry", "{not json")], parameter: "geometry"),
        Unsupported(
            layerId: 0, fields: [FormField("geometry", "-125,30,-100,45"), FormField("geometryType", "esriGeometryPolygon")],
            parameter: "geometryType"),
        Unsupported(
            layerId: 0, fields: [FormField("geometry", "-125,30,-100,45"), FormField("spatialRel", "esriSpatialRelTouches")],
            parameter: "spatialRel"),
        Unsupported(layerId: 0, fields: [FormField("geometry", "-125,30,-100,45"), FormField("inSR", "2154")], parameter: "inSR"),
        Unsupported(
            layerId: 0, fields: [FormField("geometry", #"{"xmin":0,"ymin":0,"xmax":1,"ymax":1,"spatialReference":{"wkid":2154}}"#)],
            parameter: "geometry"),
        Unsupported(layerId: 1, fields: [FormField("geometry", "-125,30,-100,45")], parameter: "geometry"),
        Unsupported(layerId: 0, fields: [FormField("outSR", "27700")], parameter: "outSR"),
        Unsupported(layerId: 0, fields: [FormField("geometryPrecision", "40")], parameter: "geometryPrecision"),
        Unsupported(layerId: 0, fields: [FormField("geometryPrecision", "two")], parameter: "geometryPrecision"),
    ]

    @Test("unsupported spatial parameters are 400s naming the parameter, never an unfiltered answer", arguments: unsupported)
    func unsupportedParameters(_ bad: Unsupported) throws {
        let info = bad.layerId == 0 ? ParksDataset.parksLayer : ParksDataset.speciesTable
        let error = #expect(throws: ServiceError.self) {
            _ = try LayerQuery.parse(
                RequestParameters(bad.fields), layer: LayerSchema(info: info, serviceLayers: []), limits: RecordLimits(maxRecordCount: 10))
        }
        #expect(error?.error.code == 400)
        #expect(error?.error.details.first == "'\(bad.parameter)' parameter is invalid")
    }
}
