import Testing

@testable import BatchApply

/// How the planner gathers a parent, the records keyed to it and their descendants into one group, in any input order.
struct PlanGroupsTests {
    /// The groups' member positions, in group order.
    static func groups(_ groups: Groups) -> [[Int]] {
        groups.order.compactMap { groups.members[$0]?.map(\.position) }
    }

    @Test("children join their parent whether they come before or after it, and grandchildren join the same group")
    func order() {
        var groups = Groups()
        groups.add(0, layer: 1, weight: 1, parentKeys: [], childKeys: ["p/A"])  // a child before its parent
        groups.add(1, layer: 0, weight: 1, parentKeys: ["p/A"], childKeys: [])
        groups.add(2, layer: 1, weight: 1, parentKeys: ["c/X"], childKeys: ["p/A"])  // a child that is a parent too
        groups.add(3, layer: 2, weight: 1, parentKeys: [], childKeys: ["c/X"])
        groups.add(4, layer: 0, weight: 1, parentKeys: ["p/B"], childKeys: [])
        #expect(groups.resolve().isEmpty)
        #expect(Self.groups(groups).map { $0.sorted() } == [[0, 1, 2, 3], [4]])
    }

    @Test("a record keyed to two parents of the input joins both, which then go together")
    func twoParents() {
        var groups = Groups()
        groups.add(0, layer: 0, weight: 1, parentKeys: ["site/S"], childKeys: [])
        groups.add(1, layer: 1, weight: 1, parentKeys: ["inspector/I"], childKeys: [])
        groups.add(2, layer: 2, weight: 1, parentKeys: [], childKeys: ["site/S", "inspector/I"])
        groups.add(3, layer: 2, weight: 1, parentKeys: [], childKeys: ["site/T", "inspector/J"])  // before both its parents
        groups.add(4, layer: 0, weight: 1, parentKeys: ["site/T"], childKeys: [])
        groups.add(5, layer: 1, weight: 1, parentKeys: ["inspector/J"], childKeys: [])
        #expect(groups.resolve().isEmpty)
        #expect(Self.groups(groups).map { $0.sorted() } == [[0, 1, 2], [3, 4, 5]])
    }

    @Test("records held back by an invalid parent hold back their own children too, in any order")
    func droppedDescendants() {
        var groups = Groups()
        groups.add(0, layer: 1, weight: 1, parentKeys: ["c/X"], childKeys: ["p/A"])  // waits for A, which is invalid
        groups.add(1, layer: 2, weight: 1, parentKeys: [], childKeys: ["c/X"])  // a grandchild
        groups.add(2, layer: 2, weight: 1, parentKeys: [], childKeys: ["c/Y"])  // waits for Y, offered by a dropped child
        groups.invalidParents["p/A"] = 9
        groups.add(3, layer: 0, weight: 1, parentKeys: ["p/B"], childKeys: [])
        groups.invalidParents["c/Y"] = 7
        let orphans = groups.resolve()
        #expect(orphans.map(\.position) == [0, 1, 2])
        #expect(orphans.map(\.parent) == [9, 9, 7])
        #expect(Self.groups(groups) == [[3]])
    }
}
