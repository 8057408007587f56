import LoadRunner
import Testing

/// Execution segments against k6's documented and tested figures (lib/execution_segment_test.go).
struct ExecutionSegmentTests {
    static func tuple(_ segment: String, _ sequence: String? = nil) throws -> ExecutionTuple {
        try ExecutionTuple(segment: ExecutionSegment(parsing: segment), sequence: sequence.map { try ExecutionSegmentSequence(parsing: $0) })
    }

    @Test("segments read as k6 reads them; bad ones are refused with the reason")
    func parsing() throws {
        for (text, expected) in [
            ("0:1", "0:1"), ("0.5:0.75", "1/2:3/4"), ("1/2:3/4", "1/2:3/4"), ("50%:75%", "1/2:3/4"), ("2/4:75%", "1/2:3/4"), ("75%", "0:3/4"),
            ("0.5:1.0", "1/2:1"), ("", "0:1"),
        ] {
            #expect(try ExecutionSegment(parsing: text).description == expected, "\(text)")
        }
        for text in ["125%", "1a5%", "1a5", "1a5%:2/3", "125%:250%", "55%:50%", "12.5%", "-1/4:1"] {
            #expect(throws: ExecutionSegmentError.self, "\(text)") { try ExecutionSegment(parsing: text) }
        }
        for text in ["0.5,1", "1/3,2/3", "0,1/3,2/3,1", "0,1/13,2/13,1/3,1/2,3/4,1"] {
            #expect(throws: Never.self) { try ExecutionSegmentSequence(parsing: text) }
        }
        for text in ["0.5", "1,1", "-0.5,1", "1/2,1/2", "1/2,1/3", "0,1,1/2"] {
            #expect(throws: ExecutionSegmentError.self, "\(text)") { try ExecutionSegmentSequence(parsing: text) }
        }
        #expect(throws: ExecutionSegmentError.self) { try Self.tuple("1/4:1/2", "0,1/3,2/3,1") }
        // Refused rather than overflowing or striping forever: huge denominators and too fine a common one.
        for text in ["1/9223372036854775807:1", "0:1/1000001", "0:9223372036854775806/9223372036854775807"] {
            #expect(throws: ExecutionSegmentError.self, "\(text)") { try ExecutionSegment(parsing: text) }
        }
        #expect(throws: ExecutionSegmentError.self) { try Self.tuple("0:1/1013", "0,1/1013,1/1009,1") }
    }

    @Test("shares of a count: each segment's, summing to the count (k6's ScaleInt64)")
    func scaling() throws {
        #expect([2, 3].map { try! Self.tuple("0.5").scale($0) } == [1, 2])
        #expect([2, 3].map { try! Self.tuple("0.5:1.0").scale($0) } == [1, 1])
        #expect(try Self.tuple("0:7/20", "0,7/20,7/10,1").scale(50) == 18)
        let thirds = "0,1/3,2/3,1"
        #expect([0, 1, 2, 3, 50].map { try! Self.tuple("0:1/3", thirds).scale($0) } == [0, 1, 1, 1, 17])
        #expect([0, 1, 2, 3, 50].map { try! Self.tuple("1/3:2/3", thirds).scale($0) } == [0, 0, 1, 1, 17])
        #expect([0, 1, 2, 3, 50].map { try! Self.tuple("2/3:1", thirds).scale($0) } == [0, 0, 0, 1, 16])
        #expect((1...10).map { try! Self.tuple("0:1/3").scale($0) } == [0, 1, 1, 1, 2, 2, 2, 3, 3, 3])
        #expect((1...10).map { try! Self.tuple("0:1/3", thirds).scale($0) } == [1, 1, 1, 2, 2, 2, 3, 3, 3, 4])
        let quarters = "0,1/2,3/4,1"
        #expect((1...12).map { try! Self.tuple("0:1/2", quarters).scale($0) } == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6])
        #expect((1...12).map { try! Self.tuple("1/2:3/4", quarters).scale($0) } == [0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3])
        #expect((1...12).map { try! Self.tuple("3/4:1", quarters).scale($0) } == [0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3])
        // Whatever the split, the shares add up.
        let sequence = "0,1/13,2/13,1/3,1/2,3/4,1"
        let segments = try ExecutionSegmentSequence(parsing: sequence).segments
        for count in [0, 1, 7, 13, 100, 1_001] {
            #expect(
                segments.map { try! ExecutionTuple(segment: $0, sequence: ExecutionSegmentSequence(parsing: sequence)).scale(count) }.reduce(0, +)
                    == count)
        }
    }

    @Test("striped offsets: which numbers are a segment's (k6's GetStripedOffsets)")
    func striping() throws {
        func offsets(_ segment: String, _ sequence: String? = nil) throws -> [Int] {
            let striped = try Self.tuple(segment, sequence).stripedOffsets
            return [striped.start] + striped.offsets + [striped.lcd]
        }
        let tenths = "0,0.3,0.5,0.6,0.7,0.8,0.9,1"
        #expect(try offsets("0:0.3", tenths) == [0, 4, 3, 3, 10])
        #expect(try offsets("0.3:0.5", tenths) == [1, 4, 6, 10])
        #expect(try offsets("0.5:0.6", tenths) == [2, 10, 10])
        #expect(try offsets("0.6:0.7", tenths) == [3, 10, 10])
        #expect(try offsets("0.8:0.9", tenths) == [8, 10, 10])
        #expect(try offsets("0.9:1", tenths) == [9, 10, 10])
        let other = "0,0.2,0.5,0.6,0.7,0.8,0.9,1"
        #expect(try offsets("0:0.2", other).dropLast() == [1, 4, 6])
        #expect(try offsets("0.6:0.7", other).dropLast() == [3, 10])
        #expect(try offsets("0:0.2", "0,0.2,0.5") == [3, 6, 4, 10])
        #expect(try offsets("0.2:0.5", "0,0.2,0.5") == [1, 4, 2, 4, 10])
        #expect(try offsets("0:2/5", "0,2/5,4/5") == [0, 3, 2, 5])
        #expect(try offsets("2/5:4/5", "0,2/5,4/5") == [1, 3, 2, 5])
        #expect(try offsets("0:0.2") == [1, 5, 5])
        #expect(try offsets("0:2/10") == [1, 5, 5])
        #expect(try offsets("0:0.4") == [1, 2, 3, 5])
        #expect(try offsets("2/5:4/5") == [1, 3, 2, 5])
        #expect(try offsets("1/10:5/10") == [1, 2, 2, 4, 2, 10])
        #expect(try Self.tuple("0:1/3", "0,1/3,4/7").lcd == 21)
        #expect(try Self.tuple("0:1/3", "0,1/3,5/6").lcd == 6)
    }

    @Test("re-split by a count (k6's GetNewExecutionTupleFromValue), then scaled")
    func split() throws {
        let thirds = "0,1/3,2/3,1"
        #expect(try Self.tuple("0:1/3", thirds).split(by: 20).sequence.map(\.description) == ["0:7/20", "7/20:7/10", "7/10:1"])
        #expect(try [20, 3, 2, 1].map { try Self.tuple("0:1/3", thirds).split(by: $0).scale(50) } == [18, 17, 25, 50])
        #expect(try [20, 2].map { try Self.tuple("1/3:2/3", thirds).split(by: $0).scale(50) } == [17, 25])
        #expect(throws: ExecutionSegmentError.self) { try Self.tuple("1/3:2/3", thirds).split(by: 1) }
        #expect(try Self.tuple("2/3:1", thirds).split(by: 20).scale(50) == 15)
        #expect(throws: ExecutionSegmentError.self) { try Self.tuple("2/3:1", thirds).split(by: 2) }
    }

    @Test("iteration numbers of a 5-VU shared-iterations test across quarters 1/4, 1/2, 1/4, as k6 numbers them")
    func iterationNumbers() throws {
        let sequence = "0,1/4,3/4,1"
        let first = try Self.tuple("0:1/4", sequence).split(by: 5)
        let middle = try Self.tuple("1/4:3/4", sequence).split(by: 5)
        let last = try Self.tuple("3/4:1", sequence).split(by: 5)
        #expect([first, middle, last].map { $0.scale(50) } == [10, 30, 10])
        #expect((0..<10).map(first.global) == Array(stride(from: 1, to: 50, by: 5)))
        #expect((0..<10).map(last.global) == Array(stride(from: 3, to: 50, by: 5)))
        let all = (0..<10).map(first.global) + (0..<30).map(middle.global) + (0..<10).map(last.global)
        #expect(all.sorted() == Array(0..<50), "each iteration on exactly one generator")
        #expect((0..<21).filter(first.owns) == [1, 6, 11, 16])
    }
}
