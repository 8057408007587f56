import FeatureModel
import Testing

@testable import LocalFeatureServer

/// Seeded random clauses: the parser never crashes, and whatever it accepts is SQL SQLite runs, with one binding per
/// placeholder.
@Suite struct WhereFuzzTests {
    static let vocabulary: [String] = [
        "name", "state", "category", "visitors", "area_km2", "established", "OBJECTID", "nosuch", "1", "0", "-2", "2.5", "1e3", "'Zion'", "'%a%'",
        "''", "'", "=", "<>", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "(", ")", ",", "AND", "OR", "NOT", "IS", "NULL", "IN", "BETWEEN",
        "LIKE", "ESCAPE", "'!'", "date '2000-01-01'", "timestamp '2000-01-01 10:00:00'", "CURRENT_DATE", "CURRENT_TIMESTAMP", "INTERVAL '2' DAY",
        "UPPER(", "LOWER(", "CHAR_LENGTH(", "ABS(", "ROUND(", "MOD(", "COALESCE(", "EXTRACT(YEAR FROM", "CAST(", "AS", "INTEGER", "TRIM(",
        "FROM", "SUBSTRING(", "FOR", "POSITION(", ";", "--", "/*", "|", "||", "\"", "SELECT", "?", "x'00'",
    ]

    static let punctuation = Array("()',;-|*/=<>% ".unicodeScalars)

    @Test("random clauses never crash; accepted ones run in SQLite", .timeLimit(.minutes(1)))
    func randomClauses() async throws {
        var generator = SplitMix64(seed: 0xF022_5EED)
        var clauses: [String] = []
        for _ in 0..<3_000 {
            let length = Int(generator.next() % 12) + 1
            clauses.append((0..<length).map { _ in Self.vocabulary[Int(generator.next() % UInt64(Self.vocabulary.count))] }.joined(separator: " "))
        }
        // Mutations of valid clauses reach deeper into the grammar than token soup.
        let seeds = WhereDialectStoreTests.cases.map(\.clause)
        for _ in 0..<2_000 {
            var scalars = Array(seeds[Int(generator.next() % UInt64(seeds.count))].unicodeScalars)
            let position = Int(generator.next() % UInt64(scalars.count))
            switch generator.next() % 3 {
            case 0: scalars.remove(at: position)
            case 1: scalars.insert(Self.punctuation[Int(generator.next() % UInt64(Self.punctuation.count))], at: position)
            default: scalars.swapAt(position, Int(generator.next() % UInt64(scalars.count)))
            }
            var text = ""
            text.unicodeScalars.append(contentsOf: scalars)
            clauses.append(text)
        }
        let compiler = WhereCompiler(fields: ParksDataset.parksLayer.fields, now: WhereClauseTests.now)
        var accepted: [String] = []
        for clause in clauses {
            guard let fragment = try? compiler.compile(clause) else { continue }
            #expect(fragment.sql.filter { $0 == "?" }.count == fragment.bindings.count, "\(clause)")
            #expect(!fragment.sql.contains(";") && !fragment.sql.contains("--") && !fragment.sql.contains("/*"), "\(clause)")
            accepted.append(clause)
        }
        #expect(accepted.count > 100)
        try await withStore { [accepted] store in
            for clause in accepted {
                do {
                    _ = try await store.answer(layerId: 0, [FormField("where", clause), FormField("returnCountOnly", "true")])
                } catch {
                    Issue.record("accepted clause failed in SQLite: \(clause): \(error)")
                }
            }
            let parks = try store.rowCount(layerId: 0)
            #expect(parks == 12)
        }
    }
}
