/// Whether an earlier release applied the same input: those derived GlobalIDs hashed throughout
/// (``DerivedGlobalID/Scheme/hashed``), and a run that derived them ordered instead would not find those adds.
extension ApplyPlanner {
    /// The GlobalIDs an earlier release derived (``DerivedGlobalID/Scheme/hashed``) for the adds among the first
    /// `limit` records of `source` that carry no GlobalID of their own, by layer. Records that do not fit their layer
    /// are passed over: planning reports them.
    package func hashedGlobalIDs(ofFirst limit: Int, in source: inout some EditReader) -> [Int: [String]] {
        var planner = self
        planner.globalIdScheme = .hashed
        var found: [Int: [String]] = [:]
        for _ in 0..<limit {
            guard let record = source.nextRead() else { break }
            let planned: PlannedEdit
            switch planner.check(record) {
            case .point(let add): planned = add
            case .ready(_, let add, givenGlobalId: false, _, _): planned = add
            default: continue
            }
            guard planned.kind == .add, let id = planned.globalId else { continue }
            found[planned.layer, default: []].append(id)
        }
        return found
    }
}
