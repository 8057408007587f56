import FeatureModel
import LoadRunner
import Testing

/// Durations beyond the longest one read (issue 32, item 4): refused as too long where they are parsed, never
/// trapped on later.
@Suite struct DurationRangeTests {
    @Test(
        "the longest duration is read exactly; anything longer, however it is written, is refused as too long",
        arguments: [
            ("8760h", true), ("525600m", true), ("31536000s", true), ("31536000000ms", true), ("8759h59m59s999ms", true),
            ("8760h1ms", false), ("8761h", false), ("99999999999999999999ms", false), ("99999999999999999999h", false),
            ("9223372036854775807ms", false), ("9223372036854775808s", false), (String(repeating: "9", count: 400) + "h", false),
            ("8760h8760h", false), (String(repeating: "1h", count: 9000), false),
        ])
    func boundaries(text: String, accepted: Bool) {
        let result = Result { () throws(DurationText.Problem) in try DurationText.read(text) }
        if accepted {
            #expect((try? result.get()).map { $0 <= DurationText.maximum && $0 > .zero } == true, "\(text): \(result)")
        } else {
            #expect(throws: DurationText.Problem.tooLong) { try result.get() }
        }
    }

    @Test("random texts of digits, dots, units and junk never trap: each is a duration from 0 to the longest, or refused")
    func fuzz() {
        var random = SplitMix64(seed: 32)
        let pieces = ["0", "1", "9", "99999999999", "18446744073709551616", ".", "5", "ms", "s", "m", "h", "x", " ", "-", "e", "٣", "1e5"]
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 1...8, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            if let duration = DurationText.parse(text) {
                #expect(duration >= .zero && duration <= DurationText.maximum, "\(text)")
                // Whatever is accepted formats and converts without overflow.
                #expect(DurationText.parse(DurationText.format(duration)) == duration, "\(text)")
            }
        }
    }

    @Test("a scenario duration beyond the longest is a validation issue naming the field and the limit")
    func scenarioDuration() {
        let yaml = """
            version: 2
            name: long
            target: local
            scenarios:
              s:
                executor: constant-vus
                vus: 1
                duration: 99999999999999999999ms
                exec: query
            """
        let error = #expect(throws: ScenarioFileError.self) { try ScenarioParser.parse(yaml: yaml, file: "long.yaml") }
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("scenarios.s.duration") && text.contains("longer than the longest duration featureload takes, 8760h"), "\(text)")
    }
}
