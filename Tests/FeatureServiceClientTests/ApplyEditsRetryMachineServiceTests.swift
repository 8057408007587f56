import FeatureModel
import FeatureServiceClient
import Testing

/// The same retry machine over a service-level request (``AtomicAdds``: adds across layers and their files, all or
/// none), event by event, without a server: the layer-level rules, keyed by each layer's GlobalID field.
@Suite struct ApplyEditsRetryMachineServiceTests {
    typealias Machine = ApplyEditsRetryMachine<AtomicAdds>
    static let idA = ExactlyOnceRuleTests.idA
    static let idB = "{AAAAAAAA-0000-4000-8000-000000000002}"
    static let idC = "{AAAAAAAA-0000-4000-8000-000000000003}"
    static let wait = RetryPolicy.Decision.retry(after: .milliseconds(100))
    static let stop = RetryPolicy.Decision.stop(.attemptsExhausted(3))
    static let atomic = ApplyEditsOptions(rollbackOnFailure: true, useGlobalIds: true)

    static func add(_ globalId: String?, field: String = "GlobalID") -> Feature {
        var attributes: [String: JSONValue] = ["name": "x"]
        if let globalId { attributes[field] = .string(globalId) }
        return Feature(attributes: attributes)
    }

    /// A parent on layer 0 and two children on layer 1, whose GlobalID field is `guid`, with a file for the parent.
    static let deepInsert = AtomicAdds(
        adds: [1: [add(idB, field: "guid"), add(idC, field: "guid")], 0: [add(idA)]], globalIdFields: [0: "GlobalID", 1: "guid"],
        objectIdFields: [0: "OBJECTID", 1: "OBJECTID"],
        attachments: [
            AttachmentAdd(
                layer: 0, globalId: "{BBBBBBBB-0000-4000-8000-000000000001}", parentGlobalId: idA, file: "a.jpg", name: "a.jpg",
                contentType: "image/jpeg")
        ])
    static let filesAlone = AtomicAdds(adds: [:], globalIdFields: [:], objectIdFields: [:], attachments: deepInsert.attachments)
    static let target = ExactlyOnceRule.VerificationTarget.addedGlobalIds([idA, idB, idC])

    static func machine(_ edits: AtomicAdds = deepInsert) -> Machine {
        Machine(edits: edits, settings: atomic)
    }

    @Test("every add is keyed in its layer's own GlobalID field, layer by layer; files alone have no key")
    func keys() {
        #expect(Self.machine().addIds == [Self.idA, Self.idB, Self.idC])
        #expect(Self.machine(Self.filesAlone).addIds == nil)
        var unkeyed = Self.deepInsert
        unkeyed.adds[1]?.append(Self.add(nil, field: "guid"))
        #expect(Self.machine(unkeyed).addIds == nil)
        #expect(Machine(edits: Self.deepInsert, settings: ApplyEditsOptions(rollbackOnFailure: true, useGlobalIds: false)).addIds == nil)
    }

    @Test("an answer finishes with it; an ambiguous failure is checked after the backoff, before anything is resent")
    func checkBeforeResend() {
        var answered = Self.machine()
        #expect(answered.start() == .send(Self.deepInsert))
        let answer = [ApplyEditsResult(id: 0, addResults: [EditResult(objectId: 1, globalId: Self.idA, success: true)])]
        #expect(answered.answered(answer) == .finish(.answered(answer, ambiguousBefore: true, abandonedAdds: nil)))

        var applied = Self.machine()
        _ = applied.start()
        #expect(
            applied.sendFailed(mayHaveBeenApplied: true, serviceRejected: false, failure: "HTTP 502", decision: Self.wait)
                == .backoff(.milliseconds(100)))
        #expect(applied.pendingCheck == Self.target)
        #expect(applied.next() == .check(Self.target))
        let found = [Self.idA: 1, Self.idB: 2, Self.idC: 3] as [String: Int64]
        #expect(applied.checked(.of(Self.target, count: 3, adds: found)) == .finish(.appliedEarlier(adds: found, objectIdField: nil)))

        var absent = Self.machine()
        _ = absent.start()
        _ = absent.sendFailed(mayHaveBeenApplied: true, serviceRejected: false, failure: "HTTP 502", decision: Self.wait)
        _ = absent.next()
        #expect(absent.checked(.of(Self.target, count: 0)) == .send(Self.deepInsert), "nothing there: sent again as new")
        #expect(!absent.ambiguous && absent.pendingCheck == nil)

        var partial = Self.machine()
        _ = partial.start()
        _ = partial.sendFailed(mayHaveBeenApplied: true, serviceRejected: false, failure: "HTTP 502", decision: Self.wait)
        _ = partial.next()
        guard case .finish(.unknown(let reason)) = partial.checked(.of(Self.target, count: 2)) else {
            Issue.record("part of an atomic request in the service must be unknown")
            return
        }
        #expect(reason.contains("2 of the 3"))
    }

    @Test("a failing check is retried as the policy allows (checks count as attempts), then the doubt stands")
    func failingCheck() {
        var machine = Self.machine()
        _ = machine.start()
        _ = machine.sendFailed(mayHaveBeenApplied: true, serviceRejected: false, failure: "reset", decision: Self.wait)
        #expect(machine.next() == .check(Self.target))
        #expect(machine.checkFailed(decision: Self.wait) == .backoff(.milliseconds(100)))
        #expect(machine.next() == .check(Self.target), "the check is still due")
        #expect(machine.checkFailed(decision: Self.stop) == .giveUp(.attemptsExhausted(3)))
        #expect(machine.ambiguous, "nothing settled whether the request was applied")
    }

    @Test("a refused request (a per-edit failure rolled it back) is checked once: there already, or rejected")
    func refusal() {
        let rejected = RetryPolicy.Decision.stop(.notRetryable)
        var replay = Self.machine()
        _ = replay.start()
        #expect(replay.sendFailed(mayHaveBeenApplied: false, serviceRejected: true, failure: "1022", decision: rejected) == .check(Self.target))
        #expect(replay.phase == .finalCheck(Self.target, .notRetryable))
        #expect(replay.checked(.of(Self.target, count: 3)) == .finish(.appliedEarlier(adds: [:], objectIdField: nil)))

        var refused = Self.machine()
        _ = refused.start()
        _ = refused.sendFailed(mayHaveBeenApplied: false, serviceRejected: true, failure: "1000", decision: rejected)
        #expect(refused.checked(.of(Self.target, count: 1)) == .giveUp(.notRetryable), "the refusal stands; what is there is reported beside it")

        var files = Self.machine(Self.filesAlone)
        _ = files.start()
        #expect(files.sendFailed(mayHaveBeenApplied: false, serviceRejected: true, failure: "1000", decision: rejected) == .giveUp(.notRetryable))
    }

    @Test("giving up after an ambiguous failure checks once more: nothing there settles it as not applied")
    func finalCheck() {
        var absent = Self.machine()
        _ = absent.start()
        #expect(absent.sendFailed(mayHaveBeenApplied: true, serviceRejected: false, failure: "reset", decision: Self.stop) == .check(Self.target))
        #expect(absent.checked(.of(Self.target, count: 0)) == .giveUp(.attemptsExhausted(3)))
        #expect(!absent.ambiguous, "checked: not applied")

        var checkFails = Self.machine()
        _ = checkFails.start()
        _ = checkFails.sendFailed(mayHaveBeenApplied: true, serviceRejected: false, failure: "reset", decision: Self.stop)
        #expect(checkFails.checkFailed(decision: Self.wait) == .giveUp(.attemptsExhausted(3)), "a final check is not retried")
        #expect(checkFails.ambiguous, "unsettled")

        var harmless = Self.machine()
        _ = harmless.start()
        #expect(
            harmless.sendFailed(mayHaveBeenApplied: false, serviceRejected: false, failure: "HTTP 503", decision: Self.wait)
                == .backoff(.milliseconds(100)))
        #expect(harmless.next() == .send(Self.deepInsert), "a failure that certainly had no effect is retried without a check")
    }

    @Test("what cannot be looked up is never resent after an ambiguous failure: files alone, or an add without its GlobalID")
    func unchecked() {
        var files = Self.machine(Self.filesAlone)
        _ = files.start()
        guard
            case .finish(.unknown(let reason)) = files.sendFailed(
                mayHaveBeenApplied: true, serviceRejected: false, failure: "reset", decision: Self.wait)
        else {
            Issue.record("files alone after an ambiguous failure must be unknown")
            return
        }
        #expect(reason == "reset: attachments alone cannot be looked up")

        var unkeyed = Self.deepInsert
        unkeyed.adds[0]?.append(Self.add(nil))
        var machine = Self.machine(unkeyed)
        _ = machine.start()
        guard
            case .finish(.unknown(let why)) = machine.sendFailed(
                mayHaveBeenApplied: true, serviceRejected: false, failure: "reset", decision: Self.wait)
        else {
            Issue.record("an atomic request with an unkeyed add must be unknown, not resent")
            return
        }
        #expect(why.contains("no client-assigned GlobalIDs"))
        var stopped = Self.machine(Self.filesAlone)
        _ = stopped.start()
        #expect(
            stopped.sendFailed(mayHaveBeenApplied: true, serviceRejected: false, failure: "reset", decision: Self.stop)
                == .giveUp(.attemptsExhausted(3)))
        #expect(stopped.ambiguous, "no check could settle it")
    }
}
