import BatchApply
import Testing

/// The pages in which the journal keeps the plan's texts.
@Suite struct PlanTextsTests {
    static func edit(_ index: Int, payload: String, source: String) -> (edit: PlannedEdit, batch: Int?) {
        (
            PlannedEdit(position: InputPosition(index: index), kind: .add, layer: 0, globalId: nil, objectId: nil, payload: payload, source: source),
            nil
        )
    }

    @Test("every slot reads back its payload and record, empty and multi-byte texts included")
    func roundTrip() throws {
        let texts = [("{\"a\":1}", "line one"), ("", ""), ("{\"name\":\"Zürich 東京 🌲\"}", "Zürich,東京,🌲"), ("x", "")]
        let edits = texts.enumerated().map { Self.edit($0.offset, payload: $0.element.0, source: $0.element.1) }
        let page = try PlanTexts(PlanTexts.encode(edits[...]))
        #expect(page.count == texts.count)
        for (slot, expected) in texts.enumerated() {
            let (payload, source) = try page.texts(at: slot)
            #expect(payload == expected.0 && source == expected.1, "slot \(slot)")
        }
        #expect(throws: ApplyError.self) { try page.texts(at: texts.count) }
    }

    @Test("a slice encodes from its own first edit")
    func slice() throws {
        let edits = (0..<5).map { Self.edit($0, payload: "p\($0)", source: "s\($0)") }
        let page = try PlanTexts(PlanTexts.encode(edits[2..<4]))
        #expect(page.count == 2)
        let (first, second) = (try page.texts(at: 0), try page.texts(at: 1))
        #expect(first.payload == "p2" && first.source == "s2")
        #expect(second.payload == "p3" && second.source == "s3")
    }

    @Test("pages hold at most the byte limit, or one larger edit, and cover every edit once in order")
    func pages() {
        let sizes = [3, 3, 3, 10, 1, 1, 4, 4]
        let edits = sizes.enumerated().map { Self.edit($0.offset, payload: String(repeating: "p", count: $0.element - 1), source: "s") }
        let pages = PlanTexts.pages(edits, pageBytes: 6)
        #expect(pages == [0..<2, 2..<3, 3..<4, 4..<7, 7..<8])
        #expect(PlanTexts.pages([], pageBytes: 6).isEmpty)
        #expect(PlanTexts.pages(edits).count == 1, "far below the default limit: one page")
    }

    @Test(
        "damaged pages are errors, not crashes",
        arguments: [[], [1, 0], [1, 0, 0, 0], [1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 65], [0, 0, 0, 0, 9], [255, 255, 255, 255]] as [[UInt8]])
    func damaged(bytes: [UInt8]) {
        #expect(throws: ApplyError.self) { try PlanTexts(bytes) }
    }
}
