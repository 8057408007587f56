import BatchApply
import Testing

@Suite struct InputPositionTests {
    @Test func describesTableLineAndRecord() {
        #expect(InputPosition(index: 0, line: 3).description == "line 3, record 1")
        #expect(InputPosition(index: 4, table: "parks").description == "table parks, record 5")
    }
}
