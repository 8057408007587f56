import FeatureModel
import Foundation
import Testing

@testable import BatchApply

/// The planner's fast path for GeoJSON point adds plans exactly what the general path plans, and leaves to it every
/// record it does not read exactly as the general path would.
@Suite struct PointAddsTests {
    static func layer(requiredName: Bool) -> LayerInfo {
        LayerInfo(
            id: 0, name: "Parks", type: "Feature Layer", geometryType: .point, objectIdField: "OBJECTID", globalIdField: "GlobalID",
            fields: [
                Field(name: "OBJECTID", type: .oid, nullable: false, editable: false),
                Field(name: "GlobalID", type: .globalID, length: 38, nullable: false, editable: false),
                Field(name: "name", type: .string, length: 20, nullable: !requiredName),
                Field(name: "state", type: .string, length: 2),
                Field(
                    name: "category", type: .smallInteger,
                    domain: .codedValue(name: "kinds", codedValues: [CodedValue(name: "Park", code: 1), CodedValue(name: "Reserve", code: 2)])),
                Field(
                    name: "grade", type: .string, length: 10,
                    domain: .codedValue(name: "grades", codedValues: [CodedValue(name: "Top", code: "A"), CodedValue(name: "Next", code: "B")])),
                Field(name: "area_km2", type: .double, domain: .range(name: "area", minValue: 0, maxValue: 1000)),
                Field(name: "established", type: .date),
                Field(name: "visitors", type: .integer),
                Field(name: "big", type: .bigInteger),
                Field(name: "score", type: .single),
                Field(name: "rank", type: .smallInteger, domain: .range(name: "ranks", minValue: -5, maxValue: 5)),
                Field(name: "created_by", type: .string, editable: false),
                Field(name: "photo", type: .guid),
            ])
    }

    static func line(_ properties: String, geometry: String = #"{"type": "Point", "coordinates": [-120.5, 36.25]}"#) -> String {
        #"{"type": "Feature", "geometry": \#(geometry), "properties": \#(properties)}"#
    }

    /// Records the fast path takes.
    static let taken: [String] = [
        line(#"{"name": "Bench 0", "state": "CA", "visitors": 0}"#),
        #"{"properties": {"visitors": 12, "name": "Reordered"}, "geometry": {"coordinates": [-120.0, 36.0], "type": "Point"}, "id": 7, "type": "Feature"}"#,
        "{\t\"type\" : \"Feature\" ,\"geometry\":{ \"type\":\"Point\",\"coordinates\":[ -1 , 2 ] } , \"properties\" : { \"name\" : \"Spaced\" } }",
        line(#"{"name": "Nulls", "state": null, "visitors": null, "area_km2": null}"#),
        line(#"{"name": "Numbers", "area_km2": 12, "score": 0.1, "visitors": -0, "big": 123456789012345678}"#),
        line(#"{"name": "Decimal", "area_km2": 12.50, "rank": -5}"#),
        line(#"{"name": "Edges", "area_km2": 1000, "rank": 5, "visitors": 2147483647, "category": 2, "grade": "B"}"#),
        line(#"{"name": "Dates", "established": -2208988800000}"#),
        line(#"{"name": "exactly twenty chars"}"#),
        line(#"{"name": "String id"}"#).replacingOccurrences(of: #"{"type": "Feature","#, with: #"{"id": "park-1", "type": "Feature","#),
        line(#"{"name": "Whole coordinates"}"#, geometry: #"{"type": "Point", "coordinates": [-120, 36]}"#),
    ]

    /// Records the fast path leaves to the general path (which finds some of them valid, and refuses the others).
    static let left: [String] = [
        line(#"{"name": "Be\"nch"}"#),
        line(#"{"name": "caf\u00e9"}"#),
        line(#"{"name": "café"}"#),
        line(#"{"name": "Exponent", "visitors": 1e3}"#),
        line(#"{"name": "Exponent"}"#, geometry: #"{"type": "Point", "coordinates": [1e2, 36]}"#),
        line(#"{"name": "Unknown", "color": "red"}"#),
        line(#"{"Name": "Other case"}"#),
        line(#"{"name": "Out of codes", "category": 3}"#),
        line(#"{"name": "Out of range", "rank": 6}"#),
        line(#"{"name": "Too many", "visitors": 3000000000}"#),
        line(#"{"name": "Negative area", "area_km2": -1}"#),
        line(#"{"name": "Too long", "state": "CAL"}"#),
        line(#"{"name": "twenty-one characters"}"#),
        line(#"{"name": "Code name", "category": "Park"}"#),
        line(#"{"name": "Code name", "grade": "Top"}"#),
        line(#"{"name": "Flag", "visitors": true}"#),
        line(#"{"name": {"a": 1}}"#),
        line(#"{"name": "Twice", "name": "Again"}"#),
        #"{"type": "Feature", "type": "Feature", "geometry": {"type": "Point", "coordinates": [1, 2]}, "properties": {"name": "Type twice"}}"#,
        line(#"{"name": "Z"}"#, geometry: #"{"type": "Point", "coordinates": [1, 2, 3]}"#),
        line(#"{"name": "Multi"}"#, geometry: #"{"type": "MultiPoint", "coordinates": [[1, 2]]}"#),
        #"{"geometry": {"type": "Point", "coordinates": [1, 2]}, "properties": {"name": "No type"}}"#,
        #"{"type": "feature", "geometry": {"type": "Point", "coordinates": [1, 2]}, "properties": {"name": "Lower case"}}"#,
        #"{"type": "Feature", "crs": {"type": "name", "properties": {"name": "EPSG:3857"}}, "geometry": {"type": "Point", "coordinates": [1, 2]}, "properties": {"name": "Web Mercator"}}"#,
        line(#"{"name": "Keyed", "OBJECTID": 5}"#),
        line(#"{"name": "Given", "GlobalID": "{8D2F1E40-0000-4000-8000-000000000001}"}"#),
        line(#"{"name": "Given", "globalid": "{8D2F1E40-0000-4000-8000-000000000002}"}"#),
        line(#"{"name": "Text number", "visitors": "5"}"#),
        line(#"{"name": 5}"#),
        line(#"{"name": "Fraction", "visitors": 5.0}"#),
        line(#"{"name": "ISO date", "established": "2024-05-01"}"#),
        line(#"{"name": "Not editable", "created_by": "me"}"#),
        line(#"{"name": "GUID", "photo": null}"#),
        #"{"type": "Feature", "properties": {"name": "No geometry"}}"#,
        line(#"{"name": "Null geometry"}"#, geometry: "null"),
        line(#"{"name": "Leading zero", "visitors": 012}"#),
        line(#"{"name": "Garbage"}"#) + " x",
        #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [1, 2]}, "properties": {"name": "Cut"#,
        line(#"{"name": "Bounding box"}"#).replacingOccurrences(of: #""type": "Feature","#, with: #""type": "Feature", "bbox": [1, 2, 1, 2],"#),
    ]

    /// Records without a name: taken unless the layer requires one.
    static let nameless: [String] = [line(#"{"state": "CA"}"#), line("null"), line("{}"), line(#"{"name": null}"#)]

    /// The planner, and the same planner without its fast path.
    static func planners(requiredName: Bool) -> (fast: ApplyPlanner, general: ApplyPlanner) {
        let fast = ApplyPlanner(layers: [0: layer(requiredName: requiredName)], defaultLayer: 0, batchSize: 10)
        var general = fast
        general.fastPath = false
        return (fast, general)
    }

    static func record(_ line: String, index: Int) -> ReadRecord {
        var reader = GeoJSONSeqReader(bytes: Array(line.utf8))
        guard let read = reader.nextRead() else { fatalError("no record in \(line)") }
        // Positions as the record would have further down a file.
        if case .deferred(let count, let text?, _) = read {
            var text = text
            text.position = InputPosition(index: index, line: index + 1)
            let moved = text
            return .deferred(byteCount: count, geoJSON: moved) {
                var again = GeoJSONSeqReader(bytes: Array(line.utf8))
                return again.next()!.map { edit in
                    var edit = edit
                    edit.position = moved.position
                    return edit
                }.mapError { problem in
                    var problem = problem
                    problem.position = moved.position
                    return problem
                }
            }
        }
        return read
    }

    /// A checked record as a comparable text: its outcome, and for a planned edit everything about it, its payload
    /// read back (the attribute order of a payload's text is free).
    static func describe(_ checked: ApplyPlanner.Checked) throws -> String {
        switch checked {
        case .unreadable(let problem): return "unreadable \(problem.position): \(problem.reason)"
        case .refused(let problem, _): return "refused \(problem.position): \(problem.reason)"
        case .point(let planned):
            // What the general path's `.ready` says of the same add: the record's source, no GlobalID of its own,
            // no attachment key.
            let edit = InputEdit(kind: .add, feature: Feature(attributes: [:]), position: planned.position, source: planned.source)
            return try describe(.ready(edit: edit, planned: planned, givenGlobalId: false, feature: Feature(attributes: [:]), attachmentKey: nil))
        case .ready(let edit, let planned, let given, _, let key):
            let payload = try JSONReader.parse(bytes: Array(planned.payload.utf8))
            guard case .object(let feature) = payload, case .object(let attributes)? = feature["attributes"] else {
                return "ready with an unreadable payload \(planned.payload)"
            }
            var geometry: [String: JSONValue] = [:]
            if case .object(let members)? = feature["geometry"] { geometry = members }
            let point = [geometry["x"]?.doubleValue, geometry["y"]?.doubleValue].map { $0.map { "\($0)" } ?? "-" }.joined(separator: " ")
            let fields = attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
            return [
                "ready \(planned.position) \(planned.kind) layer \(planned.layer) \(planned.globalId ?? "-") \(planned.objectId.map(String.init) ?? "-")",
                "given \(given) key \(key.map { "\($0)" } ?? "-") source \(planned.source == edit.source ? "kept" : "differs")",
                "attributes \(fields)", "point \(point) \(geometry["spatialReference"].map { "\($0)" } ?? "-")",
                "members \(feature.keys.sorted())", "source \(planned.source)",
            ].joined(separator: "\n")
        }
    }

    @Test("records the fast path takes are planned as the general path plans them", arguments: [false, true])
    func taken(requiredName: Bool) throws {
        let (fast, general) = Self.planners(requiredName: requiredName)
        let pointAdds = try #require(fast.pointAdds)
        for (index, line) in Self.taken.enumerated() {
            let record = Self.record(line, index: index + 40)
            guard case .deferred(_, let text?, _) = record else {
                Issue.record("no text for \(line)")
                continue
            }
            #expect(pointAdds.plan(text, scheme: .ordered) != nil, "the fast path left \(line)")
            let expected = try Self.describe(general.check(record))
            #expect(expected.hasPrefix("ready"), "\(expected)")
            #expect(try Self.describe(fast.check(record)) == expected)
        }
    }

    @Test("records it leaves go the general path, valid or not", arguments: [false, true])
    func left(requiredName: Bool) throws {
        let (fast, general) = Self.planners(requiredName: requiredName)
        let pointAdds = try #require(fast.pointAdds)
        for (index, line) in Self.left.enumerated() {
            let record = Self.record(line, index: index)
            if case .deferred(_, let text?, _) = record { #expect(pointAdds.plan(text, scheme: .ordered) == nil, "the fast path took \(line)") }
            #expect(try Self.describe(fast.check(record)) == Self.describe(general.check(record)), "\(line)")
        }
    }

    @Test("a geometry of another type than the layer's is refused when checked, naming both; no geometry is not")
    func otherGeometryType() throws {
        let (fast, _) = Self.planners(requiredName: false)
        let others = [
            (#"{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]}"#, "a polygon"),
            (#"{"type": "MultiPolygon", "coordinates": [[[[0, 0], [1, 0], [1, 1], [0, 0]]]]}"#, "a polygon"),
            (#"{"type": "LineString", "coordinates": [[0, 0], [1, 1]]}"#, "a line"),
            (#"{"type": "MultiPoint", "coordinates": [[1, 2]]}"#, "a multipoint"),
        ]
        for (index, (geometry, named)) in others.enumerated() {
            let checked = try Self.describe(fast.check(Self.record(Self.line(#"{"name": "Shape"}"#, geometry: geometry), index: index)))
            #expect(checked.hasPrefix("refused"), "\(checked)")
            #expect(checked.contains("its geometry is \(named), and layer 0 (Parks) takes points"), "\(checked)")
        }
        for geometry in ["null", #"{"type": "Point", "coordinates": [1, 2]}"#] {
            #expect(try Self.describe(fast.check(Self.record(Self.line(#"{"name": "Shape"}"#, geometry: geometry), index: 9))).hasPrefix("ready"))
        }
    }

    @Test("with dropUnknownFields, properties the layer has no field for are left out instead of refusing the record")
    func dropUnknownFields() throws {
        var (fast, _) = Self.planners(requiredName: false)
        let line = Self.line(#"{"name": "Painted", "colour": "red", "Visitors": 3}"#)
        let refused = try Self.describe(fast.check(Self.record(line, index: 0)))
        #expect(refused.hasPrefix("refused") && refused.contains("no field 'colour'"), "\(refused)")
        fast.dropUnknownFields = true
        let planned = try Self.describe(fast.check(Self.record(line, index: 0)))
        let attributes = planned.split(separator: "\n").first { $0.hasPrefix("attributes") } ?? ""
        #expect(planned.hasPrefix("ready") && !attributes.contains("colour"), "\(planned)")
        #expect(attributes.contains("name=") && attributes.contains("visitors=3"), "known fields are kept, in the layer's spelling: \(planned)")
    }

    @Test("a record without a required field is left to the general path, which refuses it", arguments: [false, true])
    func nameless(requiredName: Bool) throws {
        let (fast, general) = Self.planners(requiredName: requiredName)
        for (index, line) in Self.nameless.enumerated() {
            let record = Self.record(line, index: index)
            guard case .deferred(_, let text?, _) = record else {
                Issue.record("no text for \(line)")
                continue
            }
            #expect((fast.pointAdds?.plan(text, scheme: .ordered) != nil) == !requiredName, "\(line)")
            let expected = try Self.describe(general.check(record))
            #expect(expected.hasPrefix(requiredName ? "refused" : "ready"), "\(expected)")
            #expect(try Self.describe(fast.check(record)) == expected)
        }
    }

    @Test("seeded random records, valid and not: both paths plan the same")
    func random() throws {
        let (fast, general) = Self.planners(requiredName: false)
        var random = SplitMix64(seed: 2026)
        var takenCount = 0
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        for index in 0..<3000 {
            var members: [String] = []
            if random.next() % 4 != 0 {
                members.append(#""name": \#(pick([#""Park \#(index)""#, #""twenty-one characters""#, "null", "7", #""a\"b""#]))"#)
            }
            if random.next() % 2 == 0 { members.append(#""state": \#(pick([#""CA""#, #""CAL""#, "null", #""""#]))"#) }
            if random.next() % 2 == 0 { members.append(#""category": \#(pick(["1", "2", "3", #""Park""#, "1.0", "null"]))"#) }
            if random.next() % 2 == 0 { members.append(#""area_km2": \#(pick(["0", "12.5", "1000", "1000.01", "-0.5", "3e2", #""12""#]))"#) }
            if random.next() % 2 == 0 { members.append(#""visitors": \#(pick(["0", "-17", "2147483648", "12.0", "true", #""40""#]))"#) }
            if random.next() % 3 == 0 { members.append(#""rank": \#(pick(["-5", "5", "6", "-6", "0"]))"#) }
            if random.next() % 5 == 0 { members.append(#""\#(pick(["color", "Visitors", "GlobalID", "created_by"]))": 1"#) }
            let x = pick(["-120.5", "-120", "0", "-0.0", "179.999999", "1E2"])
            let geometry = random.next() % 10 == 0 ? "null" : #"{"type": "Point", "coordinates": [\#(x), 36.25]}"#
            let line = Self.line("{" + members.joined(separator: ", ") + "}", geometry: geometry)
            let record = Self.record(line, index: index)
            if case .deferred(_, let text?, _) = record, fast.pointAdds?.plan(text, scheme: .ordered) != nil { takenCount += 1 }
            #expect(try Self.describe(fast.check(record)) == Self.describe(general.check(record)), "\(line)")
        }
        // Both kinds were drawn in numbers.
        #expect(takenCount > 150 && takenCount < 2850, "\(takenCount) taken")
    }

    @Test("features of a FeatureCollection take it too, in the collection's coordinate system", arguments: [nil, "EPSG:3857"])
    func collection(crs: String?) throws {
        let (fast, general) = Self.planners(requiredName: false)
        let member = crs.map { #""crs": {"type": "name", "properties": {"name": "\#($0)"}}, "# } ?? ""
        // Records that are JSON on their own (a cut or garbled one would break the whole document).
        let whole = Self.left.filter { (try? JSONReader.parse(bytes: Array($0.utf8))) != nil }
        let features = (Self.taken + whole).joined(separator: ",\n")
        let document = #"{"type": "FeatureCollection", \#(member)"features": [\#(features)]}"#
        var fastReader = GeoJSONReader(bytes: Array(document.utf8))
        var generalReader = GeoJSONReader(bytes: Array(document.utf8))
        var taken = 0
        var wkids: Set<String> = []
        while let record = fastReader.nextRead(), let again = generalReader.nextRead() {
            if case .deferred(_, let text?, _) = record, fast.pointAdds?.plan(text, scheme: .ordered) != nil {
                taken += 1
                wkids.insert("\(text.wkid)")
            }
            #expect(try Self.describe(fast.check(record)) == Self.describe(general.check(again)))
        }
        #expect(taken == Self.taken.count)
        #expect(wkids == [crs == nil ? "4326" : "3857"])
    }

    @Test("layers it does not serve: not points, no GlobalID field, subtypes, a required field it cannot check")
    func layers() {
        var polygons = Self.layer(requiredName: false)
        polygons.geometryType = .polygon
        #expect(PointAdds(layer: polygons, id: 0) == nil)
        var noGlobalId = Self.layer(requiredName: false)
        noGlobalId.globalIdField = nil
        #expect(PointAdds(layer: noGlobalId, id: 0) == nil)
        var subtypes = Self.layer(requiredName: false)
        subtypes.typeIdField = "category"
        #expect(PointAdds(layer: subtypes, id: 0) == nil)
        var requiredGUID = Self.layer(requiredName: false)
        requiredGUID.fields.append(Field(name: "ticket", type: .guid, nullable: false))
        #expect(PointAdds(layer: requiredGUID, id: 0) == nil)
        #expect(PointAdds(layer: Self.layer(requiredName: true), id: 0) != nil)
        // A required field named like a key: the general path takes such an attribute out as a key, and so refuses
        // every add for lacking it; the fast path must not plan them.
        var keyNamed = Self.layer(requiredName: false)
        keyNamed.objectIdField = "FID"
        keyNamed.fields[0].name = "FID"
        keyNamed.fields.append(Field(name: "OBJECTID", type: .integer, nullable: false))
        #expect(PointAdds(layer: keyNamed, id: 0) == nil)
        // A planner given its own coercion has no fast path: the fast path checks as FieldCoercion does.
        let custom = ApplyPlanner(layers: [0: Self.layer(requiredName: false)], defaultLayer: 0, batchSize: 1) { feature, _, _ in (feature, []) }
        #expect(custom.pointAdds == nil)
    }
}
