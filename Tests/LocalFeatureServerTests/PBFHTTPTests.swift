import FeatureCollectionPBF
import FeatureModel
import FeatureServiceClient
import Foundation
import Testing

@testable import LocalFeatureServer

/// `f=pbf` over libcurl against a real server: each answer read back with ``PBFQueryAnswer`` and compared with the
/// `f=json` answer to the same query (object IDs, attributes, coordinates within half a cell of the grid the answer
/// states); quantized answers hold exactly the JSON answer's integers and transform.
@Suite struct PBFHTTPTests {
    /// Generated parks (points with small integers, integers, doubles and dates), park boundaries (polygons with
    /// holes) and trails (polylines), and a layer of multipoints.
    static func withLayers(
        configure: @escaping (inout LocalFeatureServerConfiguration) -> Void = { _ in }, _ body: @Sendable (DatasetClient) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path("multi.json")
        let points = SpatialFilterHTTPTests.layer(
            0, "esriGeometryMultipoint", [("pair", #"{"points":[[-105.123456789,40.000000001],[-104.5,39.25]]}"#), ("one", #"{"points":[[1,2]]}"#)])
        try #"{"name": "multi", "layers": [\#(points)]}"#.write(toFile: file, atomically: true, encoding: .utf8)
        try await withDatasetServer([file, "parks", "parkboundaries"], generatedRows: 30, configure: configure, body)
    }

    /// The layers checked: service, layer, what it holds.
    static let layers: [(String, Int)] = [("parks", 0), ("multi", 0), ("parkboundaries", 1), ("parkboundaries", 0)]

    static func query(_ fields: [(String, String)]) -> [(String, String)] {
        // The caller's fields last: a repeated parameter's last value wins.
        [("where", "1=1"), ("outFields", "*"), ("orderByFields", "OBJECTID")] + fields
    }

    /// The raw `f=pbf` answer: its content type and bytes.
    static func pbf(
        _ client: DatasetClient, _ service: String, _ layer: Int, _ fields: [(String, String)]
    ) async throws -> (type: String?, bytes: [UInt8]) {
        let form = (query(fields) + [("f", "pbf")]).map { FormField($0.0, $0.1) }
        let response = try await client.transport.send(HTTPRequest(url: client.url(service, "/\(layer)/query") + "?" + FormEncoding.encode(form)))
        #expect(response.status == 200)
        return (response.header("Content-Type"), response.body)
    }

    static func decoded(
        _ client: DatasetClient, _ service: String, _ layer: Int, _ fields: [(String, String)], coordinates: PBFQueryAnswer.Coordinates = .real
    ) async throws -> PBFQueryAnswer {
        let (type, bytes) = try await pbf(client, service, layer, fields)
        #expect(type == "application/x-protobuf", "\(service)/\(layer): \(String(decoding: bytes.prefix(300), as: UTF8.self))")
        return try PBFQueryAnswer(serializedBytes: bytes, coordinates: coordinates)
    }

    static func features(_ client: DatasetClient, _ service: String, _ layer: Int, _ fields: [(String, String)]) async throws -> FeatureSet {
        guard case .features(let set) = try await decoded(client, service, layer, fields) else { throw PBFTestError.notFeatures }
        return set
    }

    static func json(_ client: DatasetClient, _ service: String, _ layer: Int, _ fields: [(String, String)]) async throws -> FeatureSet {
        let answer = try await client.get(client.url(service, "/\(layer)/query"), query(fields))
        return try WireJSON.decode(FeatureSet.self, from: try WireJSON.string(answer))
    }

    /// The vertices of a geometry by part (a point is one part of one vertex).
    static func parts(_ geometry: Geometry?) -> [[[Double]]] {
        switch geometry {
        case .point(let x, let y, _, _): return [[[x, y]]]
        case .multipoint(let points, _): return [points]
        case .polyline(let parts, _), .polygon(let parts, _): return parts
        case .envelope(let xmin, let ymin, let xmax, let ymax, _): return [[[xmin, ymin], [xmax, ymax]]]
        case nil: return []
        }
    }

    /// Whether two attribute values agree (numbers by value: 4 and 4.0 are one number).
    static func same(_ a: JSONValue?, _ b: JSONValue?) -> Bool {
        if let x = a?.doubleValue, let y = b?.doubleValue { return x == y }
        return a == b
    }

    /// Checks that `decoded` (real coordinates) holds `json`'s features, attributes and coordinates within `tolerance`.
    static func expectSame(_ decoded: FeatureSet, _ json: FeatureSet, tolerance: Double, _ context: String) {
        #expect(decoded.features.count == json.features.count && !json.features.isEmpty, "\(context)")
        #expect(decoded.objectIdFieldName == json.objectIdFieldName && decoded.geometryType == json.geometryType, "\(context)")
        #expect(decoded.spatialReference?.wkid == json.spatialReference?.wkid, "\(context)")
        #expect(decoded.fields?.map(\.name) == json.fields?.map(\.name) && decoded.fields?.map(\.type) == json.fields?.map(\.type), "\(context)")
        for (ours, theirs) in zip(decoded.features, json.features) {
            let names = Set(ours.attributes.keys).union(theirs.attributes.keys)
            let differing = names.filter { !same(ours.attributes[$0], theirs.attributes[$0]) }
            #expect(
                differing.isEmpty, "\(context): \(differing.map { "\($0): \(ours.attributes[$0] ?? .null) vs \(theirs.attributes[$0] ?? .null)" })")
            let (a, b) = (parts(ours.geometry), parts(theirs.geometry))
            #expect(a.map(\.count) == b.map(\.count), "\(context): parts and vertices")
            let error = zip(a.joined(), b.joined()).map { max(abs($0[0] - $1[0]), abs($0[1] - $1[1])) }.max() ?? 0
            #expect(error <= tolerance, "\(context): \(error) > \(tolerance)")
        }
    }

    @Test(
        "unquantized: points, multipoints, lines and polygons with holes decode to the JSON answer within half a grid cell",
        .timeLimit(.minutes(2)))
    func unquantized() async throws {
        try await Self.withLayers { client in
            for (service, layer) in Self.layers {
                for (outSR, cell) in [("4326", 1e-9), ("102100", 1e-4)] {
                    let fields = [("outSR", outSR)]
                    let decoded = try await Self.features(client, service, layer, fields)
                    let json = try await Self.json(client, service, layer, fields)
                    // Half a cell, plus the rounding of a Double at these magnitudes (far below a cell).
                    Self.expectSame(decoded, json, tolerance: cell * 0.5001, "\(service)/\(layer) outSR \(outSR)")
                    #expect(decoded.exceededTransferLimit == false)
                }
            }
            let holes = try await Self.features(client, "parkboundaries", 0, [])
            #expect(holes.features.contains { Self.parts($0.geometry).count > 1 }, "the polygons include rings with holes")
        }
    }

    @Test(
        "quantized (view and edit, upperLeft and lowerLeft): the JSON answer's grid integers and transform, exactly",
        .timeLimit(.minutes(2)))
    func quantized() async throws {
        try await Self.withLayers { client in
            for (mode, origin) in [("view", "upperLeft"), ("view", "lowerLeft"), ("edit", "upperLeft"), ("edit", "lowerLeft")] {
                let parameters =
                    #"{"mode":"\#(mode)","originPosition":"\#(origin)","tolerance":0.0005,"extent":{"xmin":-125,"ymin":24,"xmax":-66,"ymax":50}}"#
                for (service, layer) in Self.layers {
                    let fields = [("quantizationParameters", parameters), ("resultType", "tile")]
                    guard case .features(let grid) = try await Self.decoded(client, service, layer, fields, coordinates: .grid) else {
                        Issue.record("\(service)/\(layer): not a features answer")
                        continue
                    }
                    let json = try await Self.json(client, service, layer, fields)
                    let context = "\(service)/\(layer) \(mode) \(origin)"
                    #expect(grid.transform != nil && grid.transform == json.transform, "\(context)")
                    #expect(grid.features.map(\.geometry) == json.features.map(\.geometry), "\(context)")
                    let agree = zip(grid.features, json.features).allSatisfy { ours, theirs in
                        ours.attributes.count == theirs.attributes.count
                            && ours.attributes.allSatisfy { Self.same($0.value, theirs.attributes[$0.key]) }
                    }
                    #expect(agree, "\(context)")
                }
            }
        }
    }

    @Test("counts, object IDs and extents: the specification's own results, equal to the JSON answer's", .timeLimit(.minutes(1)))
    func countsAndIds() async throws {
        try await Self.withLayers { client in
            let filter = [("where", "OBJECTID <= 12")]
            let count = try await Self.decoded(client, "parks", 0, filter + [("returnCountOnly", "true")])
            #expect(count == .count(Int(try #require(try await client.count("parks", 0, where: "OBJECTID <= 12")))))
            let ids = try await Self.decoded(client, "parkboundaries", 0, [("returnIdsOnly", "true")])
            let jsonIds = try await client.get(client.url("parkboundaries", "/0/query"), [("where", "1=1"), ("returnIdsOnly", "true")])
            #expect(ids == .objectIds(objectIdFieldName: "OBJECTID", jsonIds["objectIds"]?.arrayValue?.compactMap(\.intValue) ?? []))
            guard
                case .extent(let extent, let counted) = try await Self.decoded(
                    client, "parks", 0, [("returnExtentOnly", "true"), ("returnCountOnly", "true")])
            else {
                Issue.record("not an extent answer")
                return
            }
            let jsonExtent = try await client.get(
                client.url("parks", "/0/query"), [("where", "1=1"), ("returnExtentOnly", "true"), ("returnCountOnly", "true")])
            #expect(counted.map(Int64.init) == jsonExtent["count"]?.intValue)
            #expect(extent?.xmin == jsonExtent["extent"]?["xmin"]?.doubleValue && extent?.spatialReference?.wkid == 4326)
            let table = try await Self.features(client, "parks", 1, [])
            #expect(table.geometryType == nil && table.features.allSatisfy { $0.geometry == nil } && !table.features.isEmpty)
            let layer = try await client.get(client.url("parks", "/0"))
            #expect(layer["supportedQueryFormats"]?.stringValue == "JSON, geoJSON, PBF")
        }
    }

    @Test("a tile with more rows than the tile cap says exceededTransferLimit; a bad request is a JSON error envelope", .timeLimit(.minutes(1)))
    func limitsAndErrors() async throws {
        try await Self.withLayers(configure: { $0.tileMaxRecordCount = 7 }) { client in
            let tile = try await Self.features(client, "parks", 0, [("resultType", "tile")])
            #expect(tile.exceededTransferLimit == true && tile.features.count == 7)
            let few = try await Self.features(client, "parks", 0, [("resultType", "tile"), ("where", "OBJECTID <= 5")])
            #expect(few.exceededTransferLimit == false && few.features.count == 5)
            let (type, bytes) = try await Self.pbf(client, "parks", 0, [("where", "nosuchfield = 1")])
            #expect(type == FeatureServerResponder.contentType)
            #expect(try JSONReader.parse(String(decoding: bytes, as: UTF8.self))["error"]?["code"] == .int(400))
        }
    }

    @Test(
        "Google's protobuf runtime, reading our .proto, decodes the answer to the JSON answer's features, attributes and coordinates",
        .enabled(if: GoogleProtobuf.available), .timeLimit(.minutes(2)))
    func googleRuntimeReadsIt() async throws {
        try await Self.withLayers { client in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let lowerLeft = #"{"mode":"edit","originPosition":"lowerLeft","tolerance":0.0005,"extent":{"xmin":-125,"ymin":24,"xmax":-66,"ymax":50}}"#
            let cases: [(String, Int, [(String, String)])] =
                Self.layers.map { ($0.0, $0.1, []) } + [("parkboundaries", 0, [("quantizationParameters", lowerLeft)])]
            for (service, layer, fields) in cases {
                let file = directory.path("\(service)-\(layer).pbf")
                try Data(try await Self.pbf(client, service, layer, fields).bytes).write(to: URL(fileURLWithPath: file))
                let result = try ChildProcess.run(["python3", "-c", GoogleProtobuf.script, GoogleProtobuf.proto, file])
                #expect(result.status == 0, "\(String(decoding: result.errors, as: UTF8.self))")
                let read = try JSONReader.parse(String(decoding: result.output, as: UTF8.self))
                var json = try await Self.json(client, service, layer, fields)
                if let transform = json.transform {
                    for index in json.features.indices {
                        json.features[index].geometry = json.features[index].geometry.map { Self.real($0, transform) }
                    }
                }
                let features = try #require(read["features"]?.arrayValue)
                let context = "\(service)/\(layer) \(fields.isEmpty ? "unquantized" : "quantized")"
                #expect(read["version"] == "1.0" && read["objectIdFieldName"] == "OBJECTID", "\(context)")
                #expect(features.count == json.features.count && !features.isEmpty, "\(context)")
                for (theirs, ours) in zip(features, json.features) {
                    let attributes = theirs["attributes"]?.objectValue ?? [:]
                    #expect(Set(attributes.keys) == Set(ours.attributes.keys), "\(context)")
                    #expect(attributes.allSatisfy { Self.same($0.value, ours.attributes[$0.key]) }, "\(context): \(attributes) vs \(ours.attributes)")
                    let parts = try WireJSON.decode([[[Double]]].self, from: try WireJSON.string(theirs["parts"] ?? .array([])))
                    #expect(parts.map(\.count) == Self.parts(ours.geometry).map(\.count), "\(context)")
                    let error = zip(parts.joined(), Self.parts(ours.geometry).joined()).map { max(abs($0[0] - $1[0]), abs($0[1] - $1[1])) }.max() ?? 0
                    #expect(error <= 0.5e-9 + 1e-12, "\(context): \(error)")
                }
            }
        }
    }

    /// A quantized JSON geometry's real coordinates (each part's differences summed, then the transform).
    static func real(_ geometry: Geometry, _ transform: QuantizationTransform) -> Geometry {
        func part(_ vertices: [[Double]]) -> [[Double]] { QuantizationHTTPTests.decode(vertices, transform) }
        switch geometry {
        case .point(let i, let j, _, _):
            let (x, y) = transform.coordinate(i, j)
            return .point(x: x, y: y)
        case .multipoint(let points, _): return .multipoint(points: part(points))
        case .polyline(let paths, _): return .polyline(paths: paths.map(part))
        case .polygon(let rings, _): return .polygon(rings: rings.map(part))
        case .envelope: return geometry
        }
    }
}

enum PBFTestError: Error { case notFeatures }

/// Google's protobuf runtime for Python, with protoc to compile our .proto into the descriptors it reads.
enum GoogleProtobuf {
    static let available: Bool =
        (try? ChildProcess.run(["python3", "-c", "import google.protobuf"]).status) == 0
        && (try? ChildProcess.run(["protoc", "--version"]).status) == 0

    /// Our .proto, from the source tree.
    static let proto = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/FeatureCollectionPBF/Proto/FeatureCollection.proto").path

    /// Compiles the .proto with protoc, decodes the answer with Google's runtime and prints, as JSON, the version, the
    /// object ID field, and each feature's attributes by field name and its parts in real coordinates (the
    /// specification's transform applied by hand: each part's first vertex absolute, then differences).
    static let script = """
        import json, os, subprocess, sys, tempfile
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
        proto, answer = sys.argv[1], sys.argv[2]
        out = os.path.join(tempfile.mkdtemp(), 'FeatureCollection.desc')
        subprocess.run(['protoc', '-I', os.path.dirname(proto), '--descriptor_set_out=' + out, os.path.basename(proto)], check=True)
        pool = descriptor_pool.DescriptorPool()
        for file in descriptor_pb2.FileDescriptorSet.FromString(open(out, 'rb').read()).file:
            pool.Add(file)
        Collection = message_factory.GetMessageClass(pool.FindMessageTypeByName('esriPBuffer.FeatureCollectionPBuffer'))
        message = Collection.FromString(open(answer, 'rb').read())
        result = message.queryResult.featureResult
        t = result.transform
        upper = t.quantizeOriginPostion == 0
        names = [field.name for field in result.fields]
        def value(v):
            kind = v.WhichOneof('value_type')
            return None if kind in (None, 'null_value') else getattr(v, kind)
        features = []
        for feature in result.features:
            parts = []
            if feature.HasField('geometry'):
                g = feature.geometry
                at = 0
                for length in (list(g.lengths) or [len(g.coords) // 2]):
                    part, i, j = [], 0, 0
                    for k in range(length):
                        di, dj = g.coords[at], g.coords[at + 1]
                        at += 2
                        i, j = (di, dj) if k == 0 else (i + di, j + dj)
                        y = t.translate.yTranslate - j * t.scale.yScale if upper else t.translate.yTranslate + j * t.scale.yScale
                        part.append([t.translate.xTranslate + i * t.scale.xScale, y])
                    parts.append(part)
            features.append({'attributes': dict(zip(names, map(value, feature.attributes))), 'parts': parts})
        print(json.dumps({'version': message.version, 'objectIdFieldName': result.objectIdFieldName, 'features': features}))
        """
}
