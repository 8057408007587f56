import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Foundation
import GRDB
import Logging
import NIOCore
import Testing

@testable import LocalFeatureServer

/// Geometries checked against the layer's WGS 84 spatial reference. Before: a WGS 84 layer accepted `x=1e308`,
/// `y=91` and `{"x":"NaN"}`, after which `query?outSR=3857` and `returnExtentOnly&outSR=3857` failed with a 500
/// for the whole layer.
@Suite struct GeometryValidationTests {
    static func code(_ result: Result<GeometryCoercion.Stored, EditFailure>) -> Int? {
        if case .failure(let failure) = result { return failure.error.code }
        return nil
    }

    @Test("non-finite and out-of-range coordinates fail with 1015; Web Mercator input is unprojected and checked")
    func points() throws {
        for geometry: JSONValue in [
            ["x": 1e308, "y": 40.0], ["x": -105.0, "y": 91.0], ["x": 180.5, "y": 0.0], ["x": -105.0, "y": "NaN"], ["x": "1", "y": 2.0],
            ["x": 3e7, "y": 0.0, "spatialReference": ["wkid": 102100]], ["x": 0.0, "y": 0.0, "spatialReference": ["wkid": 2056]],
        ] {
            #expect(Self.code(GeometryCoercion.coerce(geometry, storage: .point)) == 1015, "\(geometry)")
        }
        #expect(try GeometryCoercion.coerce(["x": -180.0, "y": -90.0], storage: .point).get() == .point(x: -180, y: -90))
        #expect(try GeometryCoercion.coerce(["x": "NaN"], storage: .point).get() == .empty, "ArcGIS' empty point")
        #expect(try GeometryCoercion.coerce(["x": .null, "y": .null], storage: .point).get() == .empty)
        guard
            case .point(let x, let y) = try GeometryCoercion.coerce(
                ["x": -11_688_546.5, "y": 4_865_942.3, "spatialReference": ["wkid": 3857]], storage: .point
            ).get()
        else {
            Issue.record("not a point")
            return
        }
        #expect(abs(x - -105.0) < 1e-6 && abs(y - 40.0) < 1e-4)
    }

    @Test("lines and polygons: every vertex checked, Web Mercator unprojected to WGS 84, the layer's kind enforced")
    func shapes() throws {
        let square: JSONValue = ["rings": [[[-105.0, 40.0], [-104.0, 40.0], [-104.0, 41.0], [-105.0, 40.0]]]]
        guard case .json(let kept, _) = try GeometryCoercion.coerce(square, storage: .json, type: .polygon).get() else {
            Issue.record("not stored")
            return
        }
        #expect(try WireJSON.decode(Geometry.self, from: kept) == .polygon(rings: [[[-105, 40], [-104, 40], [-104, 41], [-105, 40]]]))

        let mercator: JSONValue = [
            "paths": [[[0.0, 0.0], [111_319.490_793_273_57, 0.0, 7.5]]], "spatialReference": ["wkid": 102100, "latestWkid": 3857],
        ]
        guard case .json(let unprojected, _) = try GeometryCoercion.coerce(mercator, storage: .json, type: .polyline).get(),
            case .polyline(let paths, let reference) = try WireJSON.decode(Geometry.self, from: unprojected)
        else {
            Issue.record("not a stored polyline")
            return
        }
        #expect(reference == nil && paths[0][0] == [0, 0] && abs(paths[0][1][0] - 1) < 1e-9 && paths[0][1][2] == 7.5, "z kept")

        let hole: JSONValue = ["rings": [[[-105.0, 40.0], [-104.0, 95.0], [-105.0, 40.0]]]]
        #expect(Self.code(GeometryCoercion.coerce(hole, storage: .json, type: .polygon)) == 1015)
        #expect(
            Self.code(GeometryCoercion.coerce(["paths": [[[0.0, 0.0], [1.0, 1.0]]]], storage: .json, type: .polygon)) == 1015,
            "a line on a polygon layer")
        #expect(Self.code(GeometryCoercion.coerce(["rings": [[["a", 0.0]]]], storage: .json, type: .polygon)) == 1015)
    }

    @Test(
        "over HTTP, bad points are refused edit by edit (1015) while good ones in the batch apply; projected queries keep working",
        .timeLimit(.minutes(1)))
    func http() async throws {
        try await withTestServer { server in
            try await withCurlTransport { transport in
                let adds =
                    #"[{"attributes":{"name":"Far","state":"CO"},"geometry":{"x":1e308,"y":40}},"#
                    + #"{"attributes":{"name":"North","state":"CO"},"geometry":{"x":-105,"y":91}},"#
                    + #"{"attributes":{"name":"Fine","state":"CO"},"geometry":{"x":-105,"y":40}}]"#
                let answer = try await transport.send(
                    HTTPRequest.form(
                        url: server.serviceURL + "/0/applyEdits",
                        fields: [FormField("adds", adds), FormField("rollbackOnFailure", "false"), FormField("f", "json")]))
                let results = try WireJSON.decode(ApplyEditsResult.self, from: answer.body).addResults
                #expect(results.map(\.success) == [false, false, true], "\(Wire.text(answer))")
                #expect(results.prefix(2).allSatisfy { $0.error?.code == 1015 })
                for query in ["where=1%3D1&outFields=*&outSR=3857&f=json", "where=1%3D1&returnExtentOnly=true&outSR=3857&f=json"] {
                    let response = try await transport.send(HTTPRequest(url: server.serviceURL + "/0/query?" + query))
                    #expect(WireJSON.error(in: response.body) == nil, "\(query): \(Wire.text(response))")
                }
            }
        }
    }

    @Test("a stored row outside WGS 84 (written by another program) answers without geometry and leaves the extent alone", .timeLimit(.minutes(1)))
    func badStoredRow() async throws {
        try await withStore { store in
            let layer = try #require(store.schemas[0])
            let objectId = layer.column(layer.objectIdField)
            _ = try await store.writeInTransaction { db in
                try db.execute(sql: "UPDATE \(layer.table) SET \(LayerSchema.xColumn) = 1e308, \(LayerSchema.yColumn) = 91 WHERE \(objectId) = 1")
                return ((), (), rollback: false)
            }
            let responder = FeatureServerResponder(stores: [store], limits: RecordLimits(maxRecordCount: 2000), logger: Logger(label: "test"))
            let path = "/arcgis/rest/services/parks/FeatureServer/0/query"
            let features = await responder.respond(to: ServerRequest(path: path, query: "where=1%3D1&outFields=OBJECTID&outSR=3857&f=json"))
            let set = try WireJSON.decode(FeatureSet.self, from: String(buffer: features.body))
            #expect(set.features.count == 12)
            #expect(set.features.first { $0.attributes["OBJECTID"] == 1 }?.geometry == nil)
            #expect(set.features.filter { $0.geometry != nil }.count == 11)
            let extent = await responder.respond(
                to: ServerRequest(path: path, query: "where=1%3D1&returnExtentOnly=true&returnCountOnly=true&outSR=3857&f=json"))
            guard case .object(let decoded) = try JSONReader.parse(String(buffer: extent.body)), case .object(let box)? = decoded["extent"] else {
                Issue.record("no extent: \(String(buffer: extent.body))")
                return
            }
            #expect(decoded["count"]?.intValue == 12)
            let corners = ["xmin", "ymin", "xmax", "ymax"].compactMap { box[$0]?.doubleValue }
            #expect(corners.count == 4 && corners.allSatisfy { $0.isFinite && abs($0) < 20_037_509 })
        }
    }
}
