import FeatureModel
import Testing

@Suite struct ValueWireTests {
    @Test(
        "GlobalIDs normalise to braced upper case",
        arguments: [
            ("{74100804-e229-49b8-8cdc-9b5d3ef03eda}", "{74100804-E229-49B8-8CDC-9B5D3EF03EDA}"),
            ("74100804-E229-49B8-8CDC-9B5D3EF03EDA", "{74100804-E229-49B8-8CDC-9B5D3EF03EDA}"),
            ("  {74100804-E229-49B8-8CDC-9B5D3EF03EDA} ", "{74100804-E229-49B8-8CDC-9B5D3EF03EDA}"),
            ("{74100804-E229-49B8-8CDC-9B5D3EF03EDA}", "{74100804-E229-49B8-8CDC-9B5D3EF03EDA}"),
            ("{74100804-E229-49B8-8CDC-9B5D3EF03EDa}", "{74100804-E229-49B8-8CDC-9B5D3EF03EDA}"),
        ])
    func globalIdNormalised(input: String, expected: String) {
        #expect(GlobalID.normalized(input) == expected)
    }

    @Test(
        "text that is not a GUID does not normalise",
        arguments: [
            "", "{}", "74100804-E229-49B8-8CDC", "7410080G-E229-49B8-8CDC-9B5D3EF03EDA", "{74100804E22949B88CDC9B5D3EF03EDA}",
        ])
    func globalIdRejected(input: String) {
        #expect(GlobalID.normalized(input) == nil)
    }

    @Test("new GlobalIDs are canonical and distinct")
    func globalIdMade() {
        let first = GlobalID.make()
        let second = GlobalID.make()
        #expect(GlobalID.normalized(first) == first)
        #expect(first != second)
    }

    @Test(
        "form encoding round-trips unicode and the reserved characters + % & =",
        arguments: [
            "plain", "a b", "1+1=2", "100% & more", "a=b&c=d", "Zürich 東京 🌲", "NAME LIKE 'O''Brien%'", "", "~-._",
            #"[{"attributes":{"NAME":"x&y"}}]"#,
        ])
    func formRoundTrip(value: String) {
        let fields = [FormField("where", value), FormField("k&=+", value), FormField("f", "json")]
        let encoded = FormEncoding.encode(fields)
        #expect(!encoded.contains(" "))
        #expect(encoded.split(separator: "&").count == 3, "separators inside values must be escaped: \(encoded)")
        #expect(FormEncoding.decode(encoded) == fields)
    }

    @Test("form decoding reads + as a space and keeps malformed escapes")
    func formDecoding() {
        #expect(
            FormEncoding.decode("where=a+b&x=%2B%25&bad=%zz&flag") == [
                FormField("where", "a b"), FormField("x", "+%"), FormField("bad", "%zz"), FormField("flag", ""),
            ])
    }

    @Test("JSON integers stay integers and doubles stay doubles")
    func jsonValueNumbers() throws {
        let value = try roundTrip(JSONValue.self, #"{"id":9007199254740993,"area":12.5,"whole":3.0,"neg":-4,"t":true,"s":"1","n":null,"a":[1,2.5]}"#)
        guard case .object(let object) = value else {
            Issue.record("expected an object, got \(value)")
            return
        }
        #expect(object["id"] == .int(9_007_199_254_740_993))
        #expect(object["area"] == .double(12.5))
        #expect(object["neg"] == .int(-4))
        #expect(object["t"] == .bool(true))
        #expect(object["s"] == .string("1"))
        #expect(object["n"] == .null)
        #expect(object["a"] == [1, 2.5])
        #expect(object["whole"]?.intValue == 3)
        #expect(object["area"]?.intValue == nil)
        #expect(JSONValue.int(2).doubleValue == 2)
        #expect(try WireJSON.string(JSONValue.int(7)) == "7")
        #expect(try WireJSON.string(JSONValue.double(2.5)) == "2.5")
    }
}
