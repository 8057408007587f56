import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Synchronization

/// A tiny in-memory layer for component tests of retried edits: applyEdits adds (GlobalIDs kept with
/// useGlobalIds, duplicates rejected with 1022, all-or-nothing under rollbackOnFailure) and deletes (1011 when
/// missing), and queries by `GlobalID IN (…)` or objectIds (also returnCountOnly).
final class FakeEditsService: Sendable {
    private struct State {
        var rows: [Int64: String] = [:]  // objectId → GlobalID
        var nextObjectId: Int64 = 1
        var generated = 0
    }

    private let state = Mutex(State())

    /// Rows by objectId.
    var rows: [Int64: String] { state.withLock { $0.rows } }

    /// Adds rows directly (objectIds from 1).
    func seed(_ globalIds: [String]) {
        state.withLock { state in
            for id in globalIds {
                state.rows[state.nextObjectId] = id
                state.nextObjectId += 1
            }
        }
    }

    /// A transport answering from this service and recording the requests.
    func makeTransport() -> InMemoryTransport {
        InMemoryTransport { request in self.answer(request) }
    }

    func answer(_ request: HTTPRequest) -> HTTPResponse {
        if request.path.hasSuffix("/applyEdits") { return applyEdits(request) }
        if request.path.hasSuffix("/query") { return query(request) }
        return .json(#"{"error":{"code":404,"message":"Not found","details":[]}}"#)
    }

    private func applyEdits(_ request: HTTPRequest) -> HTTPResponse {
        let rollback = request.formValue("rollbackOnFailure") != "false"
        let useGlobalIds = request.formValue("useGlobalIds") == "true"
        let adds = (try? WireJSON.decode([Feature].self, from: request.formValue("adds") ?? "[]")) ?? []
        let deletes = (request.formValue("deletes") ?? "").split(separator: ",").compactMap { Int64($0) }
        return state.withLock { state in
            var trial = state
            var addResults: [EditResult] = []
            for add in adds {
                var globalId = add[attribute: "GlobalID"]?.stringValue.flatMap(GlobalID.normalized)
                if !useGlobalIds || globalId == nil {
                    trial.generated += 1
                    let digits = String(trial.generated)
                    globalId = "{00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - digits.count) + digits + "}"
                }
                if trial.rows.values.contains(globalId!) {
                    addResults.append(.failure(globalId: globalId, code: 1022, description: "Unique constraint violation"))
                    continue
                }
                trial.rows[trial.nextObjectId] = globalId
                addResults.append(EditResult(objectId: trial.nextObjectId, globalId: globalId, success: true))
                trial.nextObjectId += 1
            }
            var deleteResults: [EditResult] = []
            for id in deletes {
                if trial.rows.removeValue(forKey: id) == nil {
                    deleteResults.append(.failure(objectId: id, code: 1011, description: "Object is missing."))
                } else {
                    deleteResults.append(EditResult(objectId: id, success: true))
                }
            }
            let failed = (addResults + deleteResults).contains { !$0.success }
            if rollback && failed {
                return .json(#"{"error":{"code":400,"message":"Unable to complete operation.","details":["Operation rolled back."]}}"#)
            }
            state = trial
            return try! .json(encoding: ApplyEditsResult(addResults: addResults, deleteResults: deleteResults))
        }
    }

    private func query(_ request: HTTPRequest) -> HTTPResponse {
        let whereClause = request.formValue("where") ?? "1=1"
        let objectIds = request.formValue("objectIds").map { $0.split(separator: ",").compactMap { Int64($0) } }
        let wanted = Set(whereClause.split(separator: "'").compactMap { GlobalID.normalized(String($0)) })
        let rows = state.withLock { $0.rows }.filter { row in
            if let objectIds, !objectIds.contains(row.key) { return false }
            return wanted.isEmpty || wanted.contains(row.value)
        }
        if request.formValue("returnCountOnly") == "true" { return .json(#"{"count":\#(rows.count)}"#) }
        let features = rows.sorted { $0.key < $1.key }.map { #"{"attributes":{"OBJECTID":\#($0.key),"GlobalID":"\#($0.value)"}}"# }
        return .json(#"{"objectIdFieldName":"OBJECTID","globalIdFieldName":"GlobalID","features":[\#(features.joined(separator: ","))]}"#)
    }
}
