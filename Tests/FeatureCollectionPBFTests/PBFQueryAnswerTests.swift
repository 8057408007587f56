import FeatureCollectionPBF
import FeatureModel
import Testing

/// The FeatureCollection encoding without a server: every answer form and value kind written and read back, the
/// grid of unquantized answers, and quantized geometries kept exactly as the JSON answer holds them.
@Suite struct PBFQueryAnswerTests {
    static let fields = [
        Field(name: "OBJECTID", type: .oid), Field(name: "name", type: .string), Field(name: "small", type: .smallInteger),
        Field(name: "count", type: .integer), Field(name: "big", type: .bigInteger), Field(name: "ratio", type: .single),
        Field(name: "value", type: .double), Field(name: "seen", type: .date), Field(name: "GlobalID", type: .globalID),
        Field(name: "ref", type: .guid),
    ]

    static func set(_ features: [Feature], type: GeometryType, transform: QuantizationTransform? = nil) -> FeatureSet {
        FeatureSet(
            objectIdFieldName: "OBJECTID", globalIdFieldName: "GlobalID", geometryType: type, spatialReference: .wgs84,
            fields: fields, features: features, exceededTransferLimit: true, transform: transform)
    }

    static func roundTrip(_ answer: PBFQueryAnswer, coordinates: PBFQueryAnswer.Coordinates = .real) throws -> PBFQueryAnswer {
        try PBFQueryAnswer(serializedBytes: try answer.serializedBytes(), coordinates: coordinates)
    }

    @Test("attributes of every kind come back as the JSON answer holds them; fields, names and the limit flag too")
    func attributes() throws {
        let attributes: [String: JSONValue] = [
            "OBJECTID": .int(7), "name": "Åsa's park", "small": .int(-3), "count": .int(2_000_000_000), "big": .int(9_007_199_254_740_993),
            "ratio": .double(1.1), "value": .double(-0.125), "seen": .int(1_700_000_000_123),
            "GlobalID": "{8D4F3A2E-1B2C-4D5E-8F90-A1B2C3D4E5F6}", "ref": .null,
        ]
        let original = Self.set([Feature(attributes: attributes, geometry: .point(x: -105.5, y: 40.25))], type: .point)
        guard case .features(let decoded) = try Self.roundTrip(.features(original)) else {
            Issue.record("not a features answer")
            return
        }
        #expect(decoded.features.first?.attributes == attributes)
        #expect(decoded.fields?.map(\.name) == Self.fields.map(\.name) && decoded.fields?.map(\.type) == Self.fields.map(\.type))
        #expect(decoded.objectIdFieldName == "OBJECTID" && decoded.globalIdFieldName == "GlobalID")
        #expect(decoded.geometryType == .point && decoded.spatialReference == .wgs84 && decoded.exceededTransferLimit == true)
        #expect(decoded.transform == nil, "real coordinates carry no transform")
    }

    @Test("unquantized coordinates come back within half a 1e-9° cell, every vertex kept, parts and holes in order")
    func unquantized() throws {
        let rings: [[[Double]]] = [
            [[-105.123456789, 40.1], [-105.1, 40.2], [-105.1, 40.2], [-105.0, 40.1], [-105.123456789, 40.1]],
            [[-105.09, 40.12], [-105.05, 40.12], [-105.07, 40.15], [-105.09, 40.12]],
        ]
        let geometries: [(GeometryType, Geometry)] = [
            (.point, .point(x: 179.999999999, y: -89.5)),
            (.multipoint, .multipoint(points: [[1, 2], [1, 2], [3.3333333333, 4]])),
            (.polyline, .polyline(paths: [[[0, 0], [1, 1]], [[2, 2], [3.5, 2.25], [4, 2]]])),
            (.polygon, .polygon(rings: rings)),
        ]
        for (type, geometry) in geometries {
            guard case .features(let decoded) = try Self.roundTrip(.features(Self.set([Feature(attributes: [:], geometry: geometry)], type: type))),
                let back = decoded.features.first?.geometry
            else {
                Issue.record("\(type): no geometry back")
                continue
            }
            #expect(Self.parts(back).map(\.count) == Self.parts(geometry).map(\.count), "\(type)")
            let error = zip(Self.parts(back).joined(), Self.parts(geometry).joined()).map { max(abs($0[0] - $1[0]), abs($0[1] - $1[1])) }.max() ?? 0
            #expect(error <= 0.5e-9 + 1e-12, "\(type): \(error)")
        }
    }

    @Test("a quantized answer's grid integers and transform are written as they are and read back unchanged")
    func quantized() throws {
        for origin in QuantizationTransform.OriginPosition.allCases {
            let transform = QuantizationTransform(originPosition: origin, scale: [0.5, 0.5, 0, 0], translate: [0, 20, 0, 0])
            let geometry = Geometry.polygon(rings: [[[4, 36], [0, -4], [4, 0], [0, 4], [-4, 0]], [[16, 24], [0, 0]]])
            let original = Self.set([Feature(attributes: ["OBJECTID": .int(1)], geometry: geometry)], type: .polygon, transform: transform)
            guard case .features(let grid) = try Self.roundTrip(.features(original), coordinates: .grid) else {
                Issue.record("not a features answer")
                continue
            }
            #expect(grid.transform == transform && grid.features.first?.geometry == geometry, "\(origin)")
            guard case .features(let real) = try Self.roundTrip(.features(original)) else { continue }
            let (x, y) = transform.coordinate(4, 36)
            #expect(Self.parts(try #require(real.features.first?.geometry)).first?.first == [x, y], "\(origin)")
        }
    }

    @Test("counts, object IDs and extents take the specification's own results")
    func otherAnswers() throws {
        #expect(try Self.roundTrip(.count(42)) == .count(42))
        #expect(try Self.roundTrip(.objectIds(objectIdFieldName: "OBJECTID", [3, 1, 8])) == .objectIds(objectIdFieldName: "OBJECTID", [3, 1, 8]))
        let extent = Extent(xmin: -1, ymin: -2, xmax: 3, ymax: 4, spatialReference: .webMercator)
        #expect(try Self.roundTrip(.extent(extent, count: 5)) == .extent(extent, count: 5))
        #expect(try Self.roundTrip(.extent(nil, count: nil)) == .extent(nil, count: nil))
        #expect(throws: PBFError.self) { try PBFQueryAnswer(serializedBytes: [0xFF, 0xFF, 0xFF]) }
    }

    static func parts(_ geometry: Geometry) -> [[[Double]]] {
        switch geometry {
        case .point(let x, let y, _, _): return [[[x, y]]]
        case .multipoint(let points, _): return [points]
        case .polyline(let parts, _), .polygon(let parts, _): return parts
        case .envelope(let xmin, let ymin, let xmax, let ymax, _): return [[[xmin, ymin], [xmax, ymax]]]
        }
    }
}
