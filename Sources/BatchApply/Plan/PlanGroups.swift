/// The groups of a plan: each parent with the adds keyed to it and its files, gathered as the input is read (in any
/// order: a child that comes before its parent waits for it).
struct Groups {
    struct Member {
        var position: Int
        var layer: Int
        /// Edits it counts for in a batch: itself and its files.
        var weight: Int
        /// Bytes of its files that travel inside the request (base64).
        var bytes: Int64 = 0
    }

    /// Group roots in the order they were started; a root merged into another has no members any more.
    private(set) var order: [Int] = []
    private(set) var members: [Int: [Member]] = [:]
    /// The group of each parent key seen (possibly a root merged since: see `find`).
    private var parents: [String: Int] = [:]
    /// The parent keys each group's members offer, by root.
    private var offered: [Int: [String]] = [:]
    /// Groups of children whose parent has not been seen, by that parent's key.
    private var waiting: [String: [Int]] = [:]
    /// Roots merged into another root.
    private var merged: [Int: Int] = [:]
    /// Keys of parents that were invalid or dropped, with their positions: their children cannot go.
    var invalidParents: [String: Int] = [:]

    private func find(_ root: Int) -> Int {
        var root = root
        while let next = merged[root] { root = next }
        return root
    }

    private mutating func merge(_ other: Int, into root: Int) {
        let (other, root) = (find(other), find(root))
        guard other != root, let moved = members.removeValue(forKey: other) else { return }
        members[root, default: []] += moved
        offered[root, default: []] += offered.removeValue(forKey: other) ?? []
        merged[other] = root
    }

    /// Adds the add at `position` to the group of every parent its `childKeys` name (merging them: a record with two
    /// parents in the input joins both), or as a new group that waits for parents not seen yet.
    mutating func add(_ position: Int, layer: Int, weight: Int, bytes: Int64 = 0, parentKeys: [String], childKeys: [String]) {
        let member = Member(position: position, layer: layer, weight: weight, bytes: bytes)
        var roots: [Int] = []
        for key in childKeys {
            if let parent = parents[key] {
                let root = find(parent)
                if !roots.contains(root) { roots.append(root) }
            }
        }
        let root: Int
        if let first = roots.first {
            root = first
            members[root, default: []].append(member)
            for other in roots.dropFirst() { merge(other, into: root) }
        } else {
            root = position
            order.append(position)
            members[position] = [member]
        }
        for key in childKeys where parents[key] == nil { waiting[key, default: []].append(root) }
        offered[find(root), default: []] += parentKeys
        for key in parentKeys {
            parents[key] = find(root)
            for waiter in waiting.removeValue(forKey: key) ?? [] { merge(waiter, into: root) }
        }
    }

    /// Drops the groups of children whose parent never came because it was invalid or dropped, and then theirs in
    /// turn; returns the dropped members' positions, each with the position of the parent that held it back.
    mutating func resolve() -> [(position: Int, parent: Int)] {
        var orphans: [(position: Int, parent: Int)] = []
        var changed = true
        while changed {
            changed = false
            for (key, waiters) in waiting {
                guard let parent = invalidParents[key] else { continue }
                waiting[key] = nil
                for waiter in waiters {
                    let root = find(waiter)
                    guard let dropped = members.removeValue(forKey: root) else { continue }
                    orphans += dropped.map { ($0.position, parent) }
                    for offeredKey in offered.removeValue(forKey: root) ?? [] where invalidParents[offeredKey] == nil {
                        invalidParents[offeredKey] = dropped[0].position
                        changed = true
                    }
                }
            }
        }
        waiting.removeAll()
        return orphans.sorted { $0.position < $1.position }
    }
}
