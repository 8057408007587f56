import FeatureModel
import Testing

@testable import LocalFeatureServer

@Suite struct GlobalIDFactoryTests {
    @Test("server GlobalIDs are canonical version-7 GUIDs that sort in the order they were made")
    func timeOrdered() {
        var factory = GlobalIDFactory(previous: 0, nowMilliseconds: 1_763_800_000_000, seed: 1)
        var made: [String] = []
        for _ in 0..<5000 { made.append(factory.make()) }
        #expect(made == made.sorted())
        #expect(Set(made).count == made.count)
        for id in made.prefix(50) {
            #expect(GlobalID.normalized(id) == id)
            let digits = Array(id)
            #expect(digits[15] == "7")
            #expect("89AB".contains(digits[20]))
        }
    }

    @Test("a later factory continues after the last value even if the clock went back")
    func monotonicAcrossBatches() {
        var first = GlobalIDFactory(previous: 0, nowMilliseconds: 2_000_000_000_000, seed: 1)
        let a = first.make()
        var second = GlobalIDFactory(previous: first.sequence, nowMilliseconds: 1_000_000_000_000, seed: 2)
        let b = second.make()
        #expect(a < b)
        var third = GlobalIDFactory(previous: second.sequence, nowMilliseconds: 3_000_000_000_000, seed: 3)
        #expect(b < third.make())
    }
}
