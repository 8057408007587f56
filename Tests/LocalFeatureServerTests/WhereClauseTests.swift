import FeatureModel
import Testing

@testable import LocalFeatureServer

@Suite struct WhereClauseTests {
    /// 2023-11-14T22:13:20Z.
    static let now: Int64 = 1_700_000_000_000
    let compiler = WhereCompiler(fields: ParksDataset.parksLayer.fields, now: WhereClauseTests.now)

    struct Accepted: Sendable, CustomStringConvertible {
        var clause: String
        var sql: String
        var bindings: [SQLValue]
        var description: String { clause }
    }

    static let accepted: [Accepted] = [
        Accepted(clause: "1=1", sql: "(? = ?)", bindings: [.integer(1), .integer(1)]),
        Accepted(clause: "", sql: "(? = ?)", bindings: [.integer(1), .integer(1)]),
        Accepted(clause: "category = 1", sql: #"("category" = ?)"#, bindings: [.integer(1)]),
        Accepted(clause: "CATEGORY<>2", sql: #"("category" <> ?)"#, bindings: [.integer(2)]),
        Accepted(clause: "category != 2", sql: #"("category" <> ?)"#, bindings: [.integer(2)]),
        Accepted(clause: "area_km2 >= 100.5", sql: #"("area_km2" >= ?)"#, bindings: [.real(100.5)]),
        Accepted(clause: "visitors < -3", sql: #"("visitors" < ?)"#, bindings: [.integer(-3)]),
        Accepted(clause: "area_km2 <= 1e3", sql: #"("area_km2" <= ?)"#, bindings: [.real(1000)]),
        Accepted(clause: "visitors > 10", sql: #"("visitors" > ?)"#, bindings: [.integer(10)]),
        Accepted(clause: "name = 'O''Brien'", sql: #"("name" = ?)"#, bindings: [.text("O'Brien")]),
        Accepted(clause: "state = 'CA' AND category = 1", sql: #"(("state" = ?) AND ("category" = ?))"#, bindings: [.text("CA"), .integer(1)]),
        Accepted(
            clause: "state = 'CA' or state = 'WY' and category = 2",
            sql: #"(("state" = ?) OR (("state" = ?) AND ("category" = ?)))"#,
            bindings: [.text("CA"), .text("WY"), .integer(2)]
        ),
        Accepted(
            clause: "(state = 'CA' OR state = 'WY') AND NOT category = 2",
            sql: #"((("state" = ?) OR ("state" = ?)) AND (NOT ("category" = ?)))"#,
            bindings: [.text("CA"), .text("WY"), .integer(2)]
        ),
        Accepted(clause: "state IS NULL", sql: #"("state" IS NULL)"#, bindings: []),
        Accepted(clause: "state is not null", sql: #"("state" IS NOT NULL)"#, bindings: []),
        Accepted(clause: "category IN (1, 3)", sql: #"("category" IN (?, ?))"#, bindings: [.integer(1), .integer(3)]),
        Accepted(clause: "state NOT IN ('CA')", sql: #"("state" NOT IN (?))"#, bindings: [.text("CA")]),
        Accepted(clause: "name LIKE 'Yo%'", sql: #"("name" LIKE ?)"#, bindings: [.text("Yo%")]),
        Accepted(clause: "name NOT LIKE '%!_%' ESCAPE '!'", sql: #"("name" NOT LIKE ? ESCAPE ?)"#, bindings: [.text("%!_%"), .text("!")]),
        Accepted(
            clause: "OBJECTID > 0 AND OBJECTID <= 1000",
            sql: #"(("OBJECTID" > ?) AND ("OBJECTID" <= ?))"#,
            bindings: [.integer(0), .integer(1000)]
        ),
        Accepted(clause: "objectid = 1 OR objectid = 5", sql: #"(("OBJECTID" = ?) OR ("OBJECTID" = ?))"#, bindings: [.integer(1), .integer(5)]),
        Accepted(clause: "visitors BETWEEN 10 AND 20", sql: #"("visitors" BETWEEN ? AND ?)"#, bindings: [.integer(10), .integer(20)]),
        Accepted(
            clause: "visitors NOT BETWEEN 1 AND 2 AND category = 1",
            sql: #"(("visitors" NOT BETWEEN ? AND ?) AND ("category" = ?))"#,
            bindings: [.integer(1), .integer(2), .integer(1)]
        ),
        Accepted(
            clause: "(visitors + 1) * 2 > area_km2 / -2",
            sql: #"((("visitors" + ?) * ?) > ("area_km2" / ?))"#,
            bindings: [.integer(1), .integer(2), .integer(-2)]
        ),
        Accepted(clause: "visitors - 1 >= 0", sql: #"(("visitors" - ?) >= ?)"#, bindings: [.integer(1), .integer(0)]),
        Accepted(clause: "-visitors < 0", sql: #"((- "visitors") < ?)"#, bindings: [.integer(0)]),
        Accepted(clause: "UPPER(name) = 'ZION'", sql: #"(upper("name") = ?)"#, bindings: [.text("ZION")]),
        Accepted(clause: "lower(state) IN ('ca', 'wy')", sql: #"(lower("state") IN (?, ?))"#, bindings: [.text("ca"), .text("wy")]),
        Accepted(clause: "CHAR_LENGTH(name) > 4", sql: #"(length("name") > ?)"#, bindings: [.integer(4)]),
        Accepted(
            clause: "SUBSTRING(name FROM 1 FOR 3) = 'Yel'",
            sql: #"(substr("name", ?, ?) = ?)"#,
            bindings: [.integer(1), .integer(3), .text("Yel")]
        ),
        Accepted(clause: "SUBSTRING(name, 2) = 'ion'", sql: #"(substr("name", ?) = ?)"#, bindings: [.integer(2), .text("ion")]),
        Accepted(clause: "POSITION('on' IN name) = 3", sql: #"(instr("name", ?) = ?)"#, bindings: [.text("on"), .integer(3)]),
        Accepted(clause: "TRIM(name) = 'Zion'", sql: #"(trim("name") = ?)"#, bindings: [.text("Zion")]),
        Accepted(clause: "TRIM(LEADING 'Z' FROM name) = 'ion'", sql: #"(ltrim("name", ?) = ?)"#, bindings: [.text("Z"), .text("ion")]),
        Accepted(clause: "TRIM(TRAILING FROM name) = 'Zion'", sql: #"(rtrim("name") = ?)"#, bindings: [.text("Zion")]),
        Accepted(
            clause: "CONCAT(state, name) = 'UTZion'",
            sql: #"((ifnull("state", '') || ifnull("name", '')) = ?)"#,
            bindings: [.text("UTZion")]
        ),
        Accepted(clause: "ABS(visitors) > 1", sql: #"(abs("visitors") > ?)"#, bindings: [.integer(1)]),
        Accepted(clause: "ROUND(area_km2, 1) = 595.9", sql: #"(round("area_km2", ?) = ?)"#, bindings: [.integer(1), .real(595.9)]),
        Accepted(
            clause: "TRUNCATE(area_km2, 1) = 595.9",
            sql: #"((trunc("area_km2" * power(10.0, ?)) / power(10.0, ?)) = ?)"#,
            bindings: [.integer(1), .integer(1), .real(595.9)]
        ),
        Accepted(clause: "MOD(visitors, 2) = 0", sql: #"(mod("visitors", ?) = ?)"#, bindings: [.integer(2), .integer(0)]),
        Accepted(clause: "CEILING(area_km2) = FLOOR(area_km2)", sql: #"(ceiling("area_km2") = floor("area_km2"))"#, bindings: []),
        Accepted(clause: "CAST(category AS VARCHAR(10)) = '1'", sql: #"(CAST("category" AS TEXT) = ?)"#, bindings: [.text("1")]),
        Accepted(clause: "COALESCE(state, 'none') <> 'none'", sql: #"(coalesce("state", ?) <> ?)"#, bindings: [.text("none"), .text("none")]),
        Accepted(clause: "established = date '2012-05-29'", sql: #"("established" = ?)"#, bindings: [.integer(1_338_249_600_000)]),
        Accepted(
            clause: "established >= TIMESTAMP '2012-05-29 15:14:25'",
            sql: #"("established" >= ?)"#,
            bindings: [.integer(1_338_304_465_000)]
        ),
        Accepted(clause: "established < '2012-05-29'", sql: #"("established" < ?)"#, bindings: [.integer(1_338_249_600_000)]),
        Accepted(
            clause: "established BETWEEN '1900-01-01' AND date '2012-05-29'",
            sql: #"("established" BETWEEN ? AND ?)"#,
            bindings: [.integer(-2_208_988_800_000), .integer(1_338_249_600_000)]
        ),
        Accepted(clause: "established < CURRENT_DATE", sql: #"("established" < ?)"#, bindings: [.integer(1_699_920_000_000)]),
        Accepted(clause: "established < current_timestamp()", sql: #"("established" < ?)"#, bindings: [.integer(now)]),
        Accepted(
            clause: "established > CURRENT_TIMESTAMP - INTERVAL '3' DAY",
            sql: #"("established" > (? - ?))"#,
            bindings: [.integer(now), .integer(3 * 86_400_000)]
        ),
        Accepted(
            clause: "established <= date '2012-05-29' + INTERVAL '1.5' HOUR",
            sql: #"("established" <= (? + ?))"#,
            bindings: [.integer(1_338_249_600_000), .integer(5_400_000)]
        ),
        Accepted(
            clause: "EXTRACT(YEAR FROM established) = 1872",
            sql: #"(CAST(strftime('%Y', "established" / 1000.0, 'unixepoch') AS INTEGER) = ?)"#,
            bindings: [.integer(1872)]
        ),
    ]

    @Test("accepted clauses compile to parameterised SQL", arguments: accepted)
    func acceptedClauses(_ case: Accepted) throws {
        let fragment = try compiler.compile(`case`.clause)
        #expect(fragment.sql == `case`.sql)
        #expect(fragment.bindings == `case`.bindings)
    }

    static let rejected: [String] = [
        "1=1; DROP TABLE layer_0",
        "1=1 --",
        "1=1 -- comment",
        "1=1 /* x */",
        "name = (SELECT name FROM layer_0)",
        "name IN (SELECT name FROM layer_0)",
        "EXISTS (SELECT 1)",
        "SHOUT(name) = 'X'",
        "sqlite_version() = '3'",
        "hex(name) = '00'",
        "randomblob(8) = 1",
        "UPPER(name, name) = 'X'",
        "name = 'a' || 'b'",
        "name = 'a' | 'b'",
        "1=1; PRAGMA writable_schema = 1",
        "PRAGMA table_info(layer_0)",
        "1=1; ATTACH DATABASE '/tmp/x' AS x",
        "ATTACH '/tmp/x' AS x",
        "name = ?",
        "name = :name",
        "name = @name",
        "name = $name",
        "[name] = 'x'",
        "`name` = 'x'",
        "category = 1 /* comment */",
        "category = 1 */",
        "category = 1 -- drop",
        "category =-- 1",
        "(category = 1) + 1 = 2",
        "NOT category",
        "category AND 1 = 1",
        "established = date '2012-13-01'",
        "established = date '2012-02-30'",
        "established = timestamp '2012-05-29 25:00:00'",
        "established = 'yesterday'",
        "established > CURRENT_DATE - 3",
        "visitors > INTERVAL '3' DAY",
        "established > CURRENT_DATE - INTERVAL 'x' DAY",
        "established > CURRENT_DATE - INTERVAL '3' FORTNIGHT",
        "EXTRACT(WEEK FROM established) = 1",
        "EXTRACT(YEAR FROM name) = 1",
        "CAST(name AS BLOB) = 1",
        "TRIM(SIDEWAYS FROM name) = 'x'",
        "name = (SELECT 1)",
        "name IN (1, 2",
        "category NOT = 1",
        "load_extension('x') = 1",
        "name = 'unterminated",
        "name = 'a'' ",
        "nosuchfield = 1",
        "name = \"double\"",
        "name = 1 ||",
        "category = 1 AND",
        "(category = 1",
        "category = 1)",
        "category == 1",
        "category = ",
        "name",
        "category = NULL",
        "category IS 1",
        "name LIKE 'a' ESCAPE 'ab'",
        "category = 1 category = 2",
        "1 = 1 UNION SELECT * FROM sqlite_master",
        "category BETWEEN 1 OR 2",
        "x'00' = 1",
        "category = 1e",
        "category = 12abc",
        "name = '\u{0}'' OR 1=1 --",
    ]

    @Test("anything outside the dialect is rejected", arguments: rejected)
    func rejectedClauses(_ clause: String) {
        #expect(throws: WhereClauseError.self) { try compiler.compile(clause) }
    }

    @Test("nesting deeper than the limit is rejected, not a stack overflow")
    func deepNesting() {
        let deep = String(repeating: "(", count: 10_000) + "1=1" + String(repeating: ")", count: 10_000)
        #expect(throws: WhereClauseError.self) { try compiler.compile(deep) }
        let notChain = String(repeating: "NOT ", count: 10_000) + "1=1"
        #expect(throws: WhereClauseError.self) { try compiler.compile(notChain) }
    }

    @Test("long AND, OR and arithmetic chains past the operator limit are rejected, not a stack overflow")
    func longChains() throws {
        let limit = WhereParser.maximumOperators
        let atLimit = Array(repeating: "OBJECTID = 1", count: limit + 1).joined(separator: " OR ")
        #expect(try compiler.compile(atLimit).sql.contains("OR"))
        for separator in [" OR ", " AND "] {
            let long = Array(repeating: "OBJECTID = 1", count: 60_000).joined(separator: separator)
            #expect(throws: WhereClauseError.self) { try compiler.compile(long) }
        }
        let sum = "OBJECTID = " + Array(repeating: "1", count: 60_000).joined(separator: " + ")
        #expect(throws: WhereClauseError.self) { try compiler.compile(sum) }
    }

    @Test("field names resolve case-insensitively to the schema's spelling")
    func caseInsensitiveFields() throws {
        let fragment = try compiler.compile("Area_KM2 > 1 and NAME like 'a%'")
        #expect(fragment.sql == #"(("area_km2" > ?) AND ("name" LIKE ?))"#)
    }

    @Test("the parser builds the expected tree")
    func tree() throws {
        let expression = try WhereParser.parse("NOT (a = 1 OR b IS NOT NULL) AND c IN ('x', -2.5)")
        #expect(
            expression
                == .and(
                    .not(.or(.comparison(.field("a"), .equal, .literal(.integer(1))), .isNull(.field("b"), negated: true))),
                    .inList(.field("c"), [.literal(.string("x")), .literal(.real(-2.5))], negated: false)
                )
        )
    }
}
