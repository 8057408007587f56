import FeatureModel
import Testing

@testable import LocalFeatureServer

/// The `where` dialect run in SQLite against the parks seed rows: every function and date form must not only
/// compile but select the right rows.
@Suite struct WhereDialectStoreTests {
    struct Case: Sendable, CustomStringConvertible {
        var clause: String
        var objectIds: [Int64]
        init(_ clause: String, _ objectIds: [Int64]) {
            self.clause = clause
            self.objectIds = objectIds
        }
        var description: String { clause }
    }

    static let cases: [Case] = [
        Case("visitors BETWEEN 4000000 AND 5000000", [1, 3, 4, 7]),
        Case("visitors NOT BETWEEN 1000000 AND 100000000", [8, 9, 10, 11]),
        Case("UPPER(name) = 'ZION'", [4]),
        Case("LOWER(state) IN ('wy', 'ak')", [1, 8, 10]),
        Case("CHAR_LENGTH(state) = 2 AND name LIKE 'G%'", [3, 5]),
        Case("SUBSTRING(name FROM 1 FOR 3) = 'Yel'", [1]),
        Case("SUBSTRING(name, 2, 3) = 'ion'", [4]),
        Case("POSITION('Mountain' IN name) > 0", [5, 7]),
        Case("TRIM(BOTH 'Z' FROM name) = 'ion'", [4]),
        Case("CONCAT(state, name) = 'UTZion'", [4]),
        Case("CEILING(area_km2) = 596", [4]),
        Case("FLOOR(area_km2) = 5", [10]),
        Case("ROUND(area_km2, 0) = 596", [4]),
        Case("TRUNCATE(area_km2, 1) = 5.4", [10]),
        Case("MOD(visitors, 2) = 0", [1, 2, 4, 6, 7, 8, 9]),
        Case("POWER(2, 3) = 8 AND OBJECTID = 1", [1]),
        Case("LOG10(visitors) > 7", [5]),
        Case("SIN(0) = 0 AND COS(0) = 1 AND TAN(0) = 0 AND LOG(1) = 0 AND OBJECTID = 2", [2]),
        Case("ABS(-visitors) = 498722", [8]),
        Case("CAST(category AS VARCHAR(8)) = '2'", [10, 11]),
        Case("CAST('7' AS INTEGER) + 1 = 8 AND OBJECTID = 3", [3]),
        Case("COALESCE(NULLIF(state, 'WY'), 'none') = 'none'", [1, 10]),
        Case("visitors * 2 > 20000000", [5]),
        Case("(visitors - 498722) / 1000 < 1", [8, 10]),
        Case("(category = 2 OR category = 3) AND NOT state = 'FL'", [10, 11]),
        Case("NOT (category = 1) AND NOT (state IN ('FL'))", [10, 11]),
        Case("EXTRACT(YEAR FROM established) = 1919", [3, 4, 6]),
        Case("EXTRACT(MONTH FROM established) = 2 AND EXTRACT(DAY FROM established) = 26", [3, 6, 8]),
        Case("established = date '1919-02-26'", [3, 6]),
        Case("established < timestamp '1900-01-01 00:00:00'", [1, 2]),
        Case("established < '1900-01-01'", [1, 2]),
        Case("established BETWEEN date '1919-01-01' AND '1919-12-31 23:59:59'", [3, 4, 6]),
        Case("established < CURRENT_DATE - INTERVAL '36500' DAY", [1, 2, 3, 4, 6, 7, 8, 10, 11]),
        Case("established < CURRENT_TIMESTAMP", Array(1...12)),
        Case("established > CURRENT_TIMESTAMP - INTERVAL '3' DAY", []),
        Case("name LIKE '%!_%' ESCAPE '!'", []),
        Case("name NOT LIKE '% %'", [1, 2, 4, 6, 8, 9]),
        Case("state IS NULL", []),
        // The quote-balanced OR trick is a legal predicate: bound as values, it selects by its own logic only.
        Case("name = 'x' OR 'a'='a'", Array(1...12)),
        Case("name = 'x'' OR ''a''=''a'", []),
    ]

    @Test("each clause selects exactly the expected parks", .timeLimit(.minutes(1)))
    func clauses() async throws {
        try await withStore { store in
            let layer = try #require(store.schemas[0])
            for `case` in Self.cases {
                do {
                    let query = try LayerQuery.parse(
                        RequestParameters([FormField("where", `case`.clause), FormField("returnIdsOnly", "true")]),
                        layer: layer, limits: RecordLimits(maxRecordCount: 2000), now: WhereClauseTests.now
                    )
                    let answer = try await store.query(layerId: 0, query)
                    #expect(answer == .objectIds(`case`.objectIds), "\(`case`.clause)")
                } catch {
                    Issue.record("\(`case`.clause): \(error)")
                }
            }
        }
    }

    @Test("a rejected clause never reaches SQLite and leaves every row in place", .timeLimit(.minutes(1)))
    func injectionsLeaveDataIntact() async throws {
        try await withStore { store in
            for clause in WhereClauseTests.rejected {
                let error = await #expect(throws: ServiceError.self, "\(clause)") {
                    _ = try await store.answer(layerId: 0, [FormField("where", clause)])
                }
                #expect(error == ServiceError.invalidWhere, "\(clause)")
            }
            let parks = try store.rowCount(layerId: 0)
            let species = try store.rowCount(layerId: 1)
            let count = try await store.answer(layerId: 0, [FormField("where", "1=1"), FormField("returnCountOnly", "true")])
            #expect(parks == 12)
            #expect(species == 30)
            #expect(count == .count(12))
        }
    }
}
