import FeatureModel
import Testing

@testable import LocalFeatureServer

@Suite struct WhereClauseTests {
    let compiler = WhereCompiler(fields: ParksDataset.parksLayer.fields)

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
        "UPPER(name) = 'X'",
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
        "category BETWEEN 1 AND 2",
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
