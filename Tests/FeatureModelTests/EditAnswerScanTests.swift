import FeatureModel
import Foundation
import Testing

/// The one-pass scan of applyEdits answers agrees with the general parse on every answer it takes.
@Suite struct EditAnswerScanTests {
    static func general(_ text: String) -> ApplyEditsResult? {
        guard let json = try? JSONReader.parse(bytes: Array(text.utf8)) else { return nil }
        return try? ApplyEditsResult(json: json)
    }

    @Test("the answers services send are scanned, equal to the general parse")
    func typical() throws {
        let answers = [
            #"{"addResults":[{"objectId":618,"globalId":"{74100804-E229-49B8-8CDC-9B5D3EF03EDA}","success":true}],"updateResults":[],"deleteResults":[]}"#,
            #"{"addResults":[],"updateResults":[{"objectId":50,"uniqueId":50,"globalId":null,"success":true}],"deleteResults":null}"#,
            #" { "id" : 3 , "addResults" : [ { "objectId" : -1 , "success" : false } ] , "editMoment" : 1690000000000 } "#,
            #"{"addResults":[{"objectId":1,"success":true,"extra":{"a":[1,2.5e3,-0.25,true,false,null,"x"],"b":{}}}]}"#,
            "{}",
        ]
        for answer in answers {
            let scanned = try #require(ApplyEditsResult.scanning(Array(answer.utf8)), "\(answer)")
            #expect(scanned == Self.general(answer), "\(answer)")
        }
    }

    @Test("a scanned GlobalID reads as its text, equal and hashed as one given as a string, and encodes as before")
    func globalIdText() throws {
        let guid = "{74100804-E229-49B8-8CDC-9B5D3EF03EDA}"
        let answer = #"{"addResults":[{"objectId":618,"globalId":"\#(guid)","success":true},{"objectId":619,"globalId":null,"success":true}]}"#
        let scanned = try #require(ApplyEditsResult.scanning(Array(answer.utf8)))
        let given = EditResult(objectId: 618, globalId: guid, success: true)
        #expect(scanned.addResults[0].globalId == guid && scanned.addResults[1].globalId == nil)
        #expect(scanned.addResults[0] == given && Set([scanned.addResults[0], given]).count == 1)
        var changed = scanned.addResults[0]
        changed.globalId = "{00000000-0000-4000-8000-000000000000}"
        #expect(changed != given && changed.globalId == "{00000000-0000-4000-8000-000000000000}")
        let encoded = String(decoding: try JSONEncoder().encode(scanned.addResults), as: UTF8.self)
        let expected = #"[{"objectId":618,"globalId":"{74100804-E229-49B8-8CDC-9B5D3EF03EDA}","success":true},{"objectId":619,"success":true}]"#
        #expect(try JSONReader.parse(bytes: Array(encoded.utf8)) == JSONReader.parse(bytes: Array(expected.utf8)))
        #expect(try JSONDecoder().decode([EditResult].self, from: Data(encoded.utf8)) == scanned.addResults)
    }

    @Test("answers the scan does not read exactly are left to the general parse")
    func declined() {
        let answers = [
            #"{"addResults":[{"objectId":1,"success":false,"error":{"code":1000,"description":"bad"}}]}"#,
            #"{"addResults":[{"objectId":1.0,"success":true}]}"#,
            #"{"addResults":[{"objectId":1,"globalId":"{A\u0042}","success":true}]}"#,
            #"{"addResults":[{"objectId":1}]}"#,
            #"{"addResults":[{"objectId":1,"success":"true"}]}"#,
            #"{"attachments":{"addResults":[]}}"#,
            #"{"error":{"code":500,"message":"x"}}"#,
            #"{"addResults":[{"objectId":01,"success":true}]}"#,
            #"{"addResults":[{"objectId":1,"success":true,"x":1-2}]}"#,
            #"{"addResults":[{"objectId":1,"success":true,"x":[1}]}"#,
            #"{"addResults":[{"objectId":1,"success":true}],}"#,
            #"{"addResults":[{"objectId":1,"success":true}]} x"#,
            #"{"addResults":[{"objectId":1,"success":true}]"#,
            "",
        ]
        for answer in answers {
            #expect(ApplyEditsResult.scanning(Array(answer.utf8)) == nil, "\(answer)")
        }
    }

    @Test("random answers and random damage: whenever the scan answers, the general parse answers the same")
    func differential() {
        var random = SplitMix64(seed: 11)
        func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
        var scannedCount = 0
        for _ in 0..<3_000 {
            var results: [String] = []
            for _ in 0..<Int(random.next() % 4) {
                var members: [String] = []
                for _ in 0..<Int(random.next() % 5) {
                    members.append(
                        pick([
                            #""objectId":\#(Int64(bitPattern: random.next()) % 100_000)"#, #""objectId":null"#, #""objectId":7.5"#,
                            #""globalId":"{00000000-0000-4000-8000-000000000001}""#, #""globalId":null"#, #""globalId":12"#,
                            #""success":true"#, #""success":false"#, #""success":null"#, #""uniqueId":4"#,
                            #""extra":[1,{"x":"y"},-2e-3]"#, #""error":{"code":1,"description":"d"}"#,
                        ]))
                }
                results.append("{" + members.joined(separator: pick([",", " , "])) + "}")
            }
            let list = "[" + results.joined(separator: ",") + "]"
            var members = [#""\#(pick(["addResults", "updateResults", "deleteResults"]))":\#(list)"#]
            if random.next() % 3 == 0 { members.append(pick([#""editMoment":12"#, #""id":0"#, #""id":null"#, #""other":"x""#])) }
            var bytes = Array(("{" + members.joined(separator: ",") + "}").utf8)
            switch random.next() % 4 {
            case 0: bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count + 1))))
            case 1: bytes[Int(random.next() % UInt64(bytes.count))] = pick(Array("{}[],:\"0-.e tfn\\".utf8))
            default: break
            }
            let text = String(decoding: bytes, as: UTF8.self)
            guard let scanned = ApplyEditsResult.scanning(bytes) else { continue }
            scannedCount += 1
            #expect(scanned == Self.general(text), "\(text)")
        }
        #expect(scannedCount > 500, "the scan should take most well-formed answers")
    }
}
