import FeatureModel
import Foundation
import Testing

@testable import LocalFeatureServer

/// `outStatistics`, `returnDistinctValues` and `returnExtentOnly` against the parks seed rows.
@Suite struct QueryStatisticsTests {
    static func statistics(_ items: [(String, String, String)]) -> String {
        "["
            + items.map { #"{"statisticType":"\#($0.0)","onStatisticField":"\#($0.1)","outStatisticFieldName":"\#($0.2)"}"# }
            .joined(separator: ",") + "]"
    }

    @Test("esridump's probe: min and max of OBJECTID with empty outFields and no where", .timeLimit(.minutes(1)))
    func esridumpProbe() async throws {
        try await withStore { store in
            let answer = try await store.answer(
                layerId: 0,
                [
                    FormField("outFields", ""),
                    FormField("outStatistics", Self.statistics([("min", "OBJECTID", "THE_MIN"), ("max", "OBJECTID", "THE_MAX")])),
                ]
            )
            #expect(answer == .statistics([Feature(attributes: ["THE_MIN": 1, "THE_MAX": 12])]))
        }
    }

    @Test("every statistic type, grouped and ordered, agrees with the rows", .timeLimit(.minutes(1)))
    func groupedStatistics() async throws {
        try await withStore { store in
            let parks = try await store.features(layerId: 0)
            let text = Self.statistics([
                ("count", "visitors", "n"), ("sum", "visitors", "total"), ("min", "visitors", "low"), ("max", "name", "last_name"),
                ("avg", "area_km2", "mean_area"), ("stddev", "visitors", "sd"), ("VAR", "visitors", "variance"),
            ])
            let answer = try await store.answer(
                layerId: 0,
                [
                    FormField("outStatistics", text), FormField("groupByFieldsForStatistics", "category"),
                    FormField("orderByFields", "n DESC"),
                ]
            )
            guard case .statistics(let rows) = answer else {
                Issue.record("expected statistics, got \(answer)")
                return
            }
            #expect(rows.map { $0.attributes["category"] } == [1, 2, 3])
            for row in rows {
                let category = try #require(row.attributes["category"]?.intValue)
                let group = parks.filter { $0.attributes["category"]?.intValue == category }
                let visitors = group.compactMap { $0.attributes["visitors"]?.doubleValue }
                let areas = group.compactMap { $0.attributes["area_km2"]?.doubleValue }
                #expect(row.attributes["n"] == .int(Int64(group.count)))
                #expect(row.attributes["total"]?.doubleValue == visitors.reduce(0, +))
                #expect(row.attributes["low"]?.doubleValue == visitors.min())
                #expect(row.attributes["last_name"]?.stringValue == group.compactMap { $0.attributes["name"]?.stringValue }.max())
                let meanArea = try #require(row.attributes["mean_area"]?.doubleValue)
                #expect(abs(meanArea - areas.reduce(0, +) / Double(areas.count)) < 1e-9)
                if visitors.count > 1 {
                    let mean = visitors.reduce(0, +) / Double(visitors.count)
                    let variance = visitors.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(visitors.count - 1)
                    let reported = try #require(row.attributes["variance"]?.doubleValue)
                    #expect(abs(reported - variance) / variance < 1e-9)
                    #expect(abs((row.attributes["sd"]?.doubleValue ?? 0) - variance.squareRoot()) / variance.squareRoot() < 1e-9)
                } else {
                    #expect(row.attributes["variance"] == .null)
                    #expect(row.attributes["sd"] == .null)
                }
            }
        }
    }

    @Test("statistics honour where and order by a group field; count of * counts rows", .timeLimit(.minutes(1)))
    func filteredStatistics() async throws {
        try await withStore { store in
            let answer = try await store.answer(
                layerId: 0,
                [
                    FormField("where", "category = 1"), FormField("groupByFieldsForStatistics", "state"),
                    FormField("outStatistics", Self.statistics([("count", "*", "parks")])), FormField("orderByFields", "state DESC"),
                ]
            )
            guard case .statistics(let rows) = answer else {
                Issue.record("expected statistics")
                return
            }
            #expect(rows.map { $0.attributes["state"]?.stringValue ?? "" } == ["WY", "UT", "TN", "ME", "FL", "CO", "CA", "AZ", "AK"])
            #expect(rows.map { $0.attributes["parks"]?.intValue ?? 0 }.reduce(0, +) == 9)
            let species = try await store.answer(
                layerId: 1,
                [FormField("outStatistics", #"[{"statisticType":"sum","onStatisticField":"observed"}]"#), FormField("where", "status = 'EN'")]
            )
            #expect(species == .statistics([Feature(attributes: ["sum_observed": 3_130.0])]))
        }
    }

    @Test("distinct values follow outFields, page, and count without paging", .timeLimit(.minutes(1)))
    func distinct() async throws {
        try await withStore { store in
            let states = try await store.answer(
                layerId: 0, [FormField("returnDistinctValues", "true"), FormField("outFields", "state"), FormField("returnGeometry", "false")]
            )
            let expected = ["AK", "AZ", "CA", "CO", "FL", "ME", "TN", "UT", "WY"]
            #expect(states == .features(expected.map { Feature(attributes: ["state": .string($0)]) }, exceededTransferLimit: false))
            let page = try await store.answer(
                layerId: 0,
                [
                    FormField("returnDistinctValues", "true"), FormField("outFields", "state"), FormField("orderByFields", "state DESC"),
                    FormField("resultOffset", "2"), FormField("resultRecordCount", "3"),
                ]
            )
            #expect(page == .features(["TN", "ME", "FL"].map { Feature(attributes: ["state": .string($0)]) }, exceededTransferLimit: true))
            let count = try await store.answer(
                layerId: 0,
                [
                    FormField("returnDistinctValues", "true"), FormField("outFields", "category"), FormField("returnCountOnly", "true"),
                    FormField("resultRecordCount", "1"),
                ]
            )
            #expect(count == .count(3))
        }
    }

    @Test("returnExtentOnly bounds the matching points, with the count when asked", .timeLimit(.minutes(1)))
    func extent() async throws {
        try await withStore { store in
            let monuments = try await store.answer(
                layerId: 0, [FormField("where", "category = 2"), FormField("returnExtentOnly", "true"), FormField("returnCountOnly", "true")]
            )
            #expect(
                monuments == .extent(Extent(xmin: -122.5811, ymin: 37.8970, xmax: -104.7146, ymax: 44.5902, spatialReference: .wgs84), count: 2)
            )
            let none = try await store.answer(layerId: 0, [FormField("where", "1=0"), FormField("returnExtentOnly", "true")])
            #expect(none == .extent(nil, count: nil))
            let projected = try await store.answer(
                layerId: 0, [FormField("objectIds", "1"), FormField("returnExtentOnly", "true"), FormField("outSR", "3857")]
            )
            guard case .extent(let box?, nil) = projected else {
                Issue.record("expected an extent, got \(projected)")
                return
            }
            #expect(abs(box.xmin - -12_310_655.507591935) < 1e-6 && box.xmin == box.xmax)
            #expect(abs(box.ymin - 5_531_916.841954162) < 1e-6 && box.ymin == box.ymax)
            #expect(box.spatialReference == .webMercator)
        }
    }

    struct BadStatistics: Sendable, CustomStringConvertible {
        var fields: [FormField]
        var parameter: String
        var description: String { fields.map { "\($0.name)=\($0.value)" }.joined(separator: "&") }
    }

    static let bad: [BadStatistics] = [
        BadStatistics(fields: [FormField("outStatistics", "[")], parameter: "outStatistics"),
        BadStatistics(fields: [FormField("outStatistics", "[]")], parameter: "outStatistics"),
        BadStatistics(fields: [FormField("outStatistics", statistics([("median", "visitors", "m")]))], parameter: "outStatistics"),
        BadStatistics(fields: [FormField("outStatistics", statistics([("sum", "name", "s")]))], parameter: "outStatistics"),
        BadStatistics(fields: [FormField("outStatistics", statistics([("sum", "nosuch", "s")]))], parameter: "outStatistics"),
        BadStatistics(fields: [FormField("outStatistics", statistics([("sum", "*", "s")]))], parameter: "outStatistics"),
        BadStatistics(
            fields: [FormField("outStatistics", statistics([("min", "visitors", "x"), ("max", "visitors", "X")]))], parameter: "outStatistics"),
        BadStatistics(
            fields: [FormField("outStatistics", statistics([("min", "visitors", "x")])), FormField("groupByFieldsForStatistics", "nosuch")],
            parameter: "groupByFieldsForStatistics"),
        BadStatistics(
            fields: [FormField("outStatistics", statistics([("min", "visitors", "x")])), FormField("orderByFields", "name")],
            parameter: "orderByFields"),
        BadStatistics(
            fields: [FormField("returnDistinctValues", "true"), FormField("outFields", "state"), FormField("orderByFields", "name")],
            parameter: "orderByFields"),
    ]

    @Test("malformed statistics and distinct requests are 400s naming the parameter", arguments: bad)
    func badStatistics(_ bad: BadStatistics) throws {
        let layer = LayerSchema(info: ParksDataset.parksLayer, serviceLayers: [])
        let error = #expect(throws: ServiceError.self) {
            _ = try LayerQuery.parse(RequestParameters(bad.fields), layer: layer, limits: RecordLimits(maxRecordCount: 10))
        }
        #expect(error?.error.code == 400)
        #expect(error?.error.details.first == "'\(bad.parameter)' parameter is invalid")
        #expect((error?.error.details.count ?? 0) == 2)
    }
}
