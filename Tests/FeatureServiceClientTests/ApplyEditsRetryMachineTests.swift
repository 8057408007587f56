import FeatureModel
import FeatureServiceClient
import Testing

/// The retried applyEdits' decisions, event by event, without a server: every path of the exactly-once rule.
@Suite struct ApplyEditsRetryMachineTests {
    typealias Machine = ApplyEditsRetryMachine<LayerEdits>
    static let idA = ExactlyOnceRuleTests.idA
    static let keyed = LayerEdits(adds: [ExactlyOnceRuleTests.add(idA)])
    static let answer = ApplyEditsResult(addResults: [EditResult(objectId: 9, globalId: idA, success: true)])
    static let wait = RetryPolicy.Decision.retry(after: .milliseconds(100))
    static let stop = RetryPolicy.Decision.stop(.attemptsExhausted(3))

    static func machine(_ edits: LayerEdits = keyed, rollback: Bool, globalIds: Bool = true) -> Machine {
        Machine(edits: edits, options: ApplyEditsOptions(rollbackOnFailure: rollback, useGlobalIds: globalIds), globalIdField: "GlobalID")
    }

    @Test("an answer on the first send finishes; duplicates still read as applied earlier, since the transport may replay")
    func firstAnswer() {
        var machine = Self.machine(rollback: true)
        #expect(machine.phase == .idle)
        #expect(machine.start() == .send(Self.keyed))
        #expect(machine.answered(Self.answer) == .finish(.answered(Self.answer, ambiguousBefore: true, abandonedAdds: nil)))
        #expect(machine.phase == .done)
    }

    @Test("keyed adds without rollback: an ambiguous failure is replayed after the backoff")
    func replay() {
        var machine = Self.machine(rollback: false)
        _ = machine.start()
        #expect(
            machine.sendFailed(mayHaveBeenApplied: true, serviceRejected: false, failure: "timeout", decision: Self.wait)
                == .backoff(.milliseconds(100)))
        #expect(machine.ambiguous && machine.phase == .waiting && machine.pendingCheck == nil)
        #expect(machine.next() == .send(Self.keyed))
    }

    @Test("with rollback, an ambiguous failure is checked before resending: applied, not applied, or partial")
    func checkFirst() {
        let target = ExactlyOnceRule.VerificationTarget.addedGlobalIds([Self.idA])
        var applied = Self.machine(rollback: true)
        _ = applied.start()
        #expect(
            applied.sendFailed(mayHaveBeenApplied: true, serviceRejected: false, failure: "HTTP 502", decision: Self.wait)
                == .backoff(.milliseconds(100)))
        #expect(applied.next() == .check(target))
        #expect(applied.phase == .checking(target))
        #expect(
            applied.checked(.of(target, count: 1, adds: [Self.idA: 9], objectIdField: "OBJECTID"))
                == .finish(.appliedEarlier(adds: [Self.idA: 9], objectIdField: "OBJECTID")))

        var absent = Self.machine(rollback: true)
        _ = absent.start()
        _ = absent.sendFailed(mayHaveBeenApplied: true, serviceRejected: false, failure: "HTTP 502", decision: Self.wait)
        _ = absent.next()
        #expect(absent.checked(.of(target, count: 0)) == .send(Self.keyed), "not applied: resend at once")
        #expect(!absent.ambiguous && absent.pendingCheck == nil)

        let two = LayerEdits(adds: [ExactlyOnceRuleTests.add(Self.idA), ExactlyOnceRuleTests.add(ExactlyOnceRuleTests.idB)])
        var partial = Self.machine(two, rollback: true)
        _ = partial.start()
        _ = partial.sendFailed(mayHaveBeenApplied: true, serviceRejected: false, failure: "HTTP 502", decision: Self.wait)
        guard case .check(let both) = partial.next() else {
            Issue.record("no check")
            return
        }
        guard case .finish(.unknown(let reason)) = partial.checked(.of(both, count: 1)) else {
            Issue.record("a partial batch must be unknown")
            return
        }
        #expect(reason.contains("1 of the 2"))
    }

    @Test("a failing check is retried as the policy allows, then the check's failure stands")
    func failingCheck() {
        let target = ExactlyOnceRule.VerificationTarget.deletedObjectIds([3])
        var machine = Self.machine(LayerEdits(deletes: [3]), rollback: true, globalIds: false)
        _ = machine.start()
        _ = machine.sendFailed(mayHaveBeenApplied: true, serviceRejected: false, failure: "reset", decision: Self.wait)
        #expect(machine.next() == .check(target))
        #expect(machine.checkFailed(decision: Self.wait) == .backoff(.milliseconds(100)))
        #expect(machine.next() == .check(target), "the check is still due")
        #expect(machine.checkFailed(decision: Self.stop) == .giveUp(.attemptsExhausted(3)))
    }

    @Test("adds without GlobalIDs are abandoned after an ambiguous failure: alone they are unknown, beside others the rest goes on")
    func abandon() {
        let unkeyed = LayerEdits(adds: [ExactlyOnceRuleTests.add(nil)], deletes: [7])
        var rest = Self.machine(unkeyed, rollback: false, globalIds: false)
        _ = rest.start()
        #expect(
            rest.sendFailed(mayHaveBeenApplied: true, serviceRejected: false, failure: "a timeout after sending", decision: Self.wait)
                == .backoff(.milliseconds(100)))
        #expect(rest.next() == .send(LayerEdits(deletes: [7])))
        let reason = rest.abandonedAdds ?? ""
        #expect(reason.contains("a timeout after sending"))
        let answer = ApplyEditsResult(deleteResults: [EditResult(objectId: 7, success: true)])
        #expect(rest.answered(answer) == .finish(.answered(answer, ambiguousBefore: true, abandonedAdds: reason)))

        var alone = Self.machine(LayerEdits(adds: [ExactlyOnceRuleTests.add(nil)]), rollback: false, globalIds: false)
        _ = alone.start()
        guard case .finish(.unknown) = alone.sendFailed(mayHaveBeenApplied: true, serviceRejected: false, failure: "reset", decision: Self.wait)
        else {
            Issue.record("adds alone without keys must be unknown, not resent")
            return
        }
        var atomic = Self.machine(unkeyed, rollback: true, globalIds: false)
        _ = atomic.start()
        guard case .finish(.unknown) = atomic.sendFailed(mayHaveBeenApplied: true, serviceRejected: false, failure: "reset", decision: Self.wait)
        else {
            Issue.record("with rollback the whole batch shares the adds' fate")
            return
        }
    }

    @Test("failures that certainly had no effect are retried without a check; giving up after one reports it")
    func harmless() {
        var machine = Self.machine(rollback: true)
        _ = machine.start()
        #expect(
            machine.sendFailed(mayHaveBeenApplied: false, serviceRejected: false, failure: "HTTP 503", decision: Self.wait)
                == .backoff(.milliseconds(100)))
        #expect(!machine.ambiguous && machine.next() == .send(Self.keyed))
        #expect(
            machine.sendFailed(mayHaveBeenApplied: false, serviceRejected: false, failure: "HTTP 503", decision: Self.stop)
                == .giveUp(.attemptsExhausted(3)))
    }

    @Test("giving up after an ambiguous failure, or after a rolled-back batch, checks once more; only 'applied' overturns the failure")
    func finalCheck() {
        let target = ExactlyOnceRule.VerificationTarget.addedGlobalIds([Self.idA])
        var rolledBack = Self.machine(rollback: true)
        _ = rolledBack.start()
        let rejected = RetryPolicy.Decision.stop(.notRetryable)
        #expect(rolledBack.sendFailed(mayHaveBeenApplied: false, serviceRejected: true, failure: "1022", decision: rejected) == .check(target))
        #expect(rolledBack.phase == .finalCheck(target, .notRetryable))
        #expect(rolledBack.checked(.of(target, count: 1, adds: [Self.idA: 4])) == .finish(.appliedEarlier(adds: [Self.idA: 4], objectIdField: nil)))

        var stands = Self.machine(rollback: true)
        _ = stands.start()
        _ = stands.sendFailed(mayHaveBeenApplied: true, serviceRejected: false, failure: "reset", decision: Self.stop)
        #expect(stands.checked(.of(target, count: 0)) == .giveUp(.attemptsExhausted(3)))

        var checkFails = Self.machine(rollback: true)
        _ = checkFails.start()
        _ = checkFails.sendFailed(mayHaveBeenApplied: true, serviceRejected: false, failure: "reset", decision: Self.stop)
        #expect(checkFails.checkFailed(decision: Self.wait) == .giveUp(.attemptsExhausted(3)), "a final check is not retried")

        var plain = Self.machine(rollback: false)
        _ = plain.start()
        #expect(plain.sendFailed(mayHaveBeenApplied: false, serviceRejected: true, failure: "1000", decision: rejected) == .giveUp(.notRetryable))
    }
}
