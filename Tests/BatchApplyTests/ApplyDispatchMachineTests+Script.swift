import FeatureModel
import FeatureServiceClient
import FeatureloadTestSupport
import Testing

@testable import BatchApply

/// The script the dispatch machine's tests follow: a machine, the time moved by hand, and the events and batches they
/// report.
extension ApplyDispatchMachineTests {
    /// A run of the machine: the last action, the time moved by hand.
    struct Script {
        var machine: Machine
        var now = ManualClock.Instant(offset: .zero)
        var action: Machine.Action

        init(_ configuration: Machine.Configuration, inDoubt: [Int] = [], cancelled: Bool = false) {
            machine = Machine(configuration, inDoubt: inDoubt, start: now)
            if cancelled { machine.cancel() }
            action = machine.begin(now: now)
        }

        /// Reports `event`, `after` the last one, and expects the next action to read `expected`.
        mutating func expect(
            _ event: Machine.Event, after: Duration = .zero, gives expected: String, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            now = now.advanced(by: after)
            action = machine.handle(event, now: now)
            #expect(action.text == expected, sourceLocation: sourceLocation)
        }

        /// The summary of the run, once it is over.
        var summary: BatchApplier.Summary? {
            if case .finish(let summary) = action { return summary }
            return nil
        }

        /// The outcomes the last action writes.
        var outcomes: Machine.Outcomes? {
            switch action {
            case .record(let outcomes), .send(_, let outcomes): return outcomes
            default: return nil
            }
        }

        /// The batch the last action sends.
        var sent: JournalBatch? {
            if case .send(let batch, _) = action { return batch }
            return nil
        }
    }

    static func configuration(
        concurrency: Int = 2, rate: Double? = nil, serviceWait: Duration = .seconds(60), probeInterval: Duration = .seconds(30),
        streaming: Bool = false
    ) -> Machine.Configuration {
        Machine.Configuration(
            concurrency: concurrency, batchSize: 2, rate: rate, serviceWait: serviceWait, probeInterval: probeInterval, streamingPlan: streaming)
    }

    /// Batch `id` of adds to layer 0, each keyed by its GlobalID (`{id-k}` unless `keys` names them).
    static func batch(_ id: Int, edits: Int = 2, keys: [String]? = nil, barrier: Bool = false) -> JournalBatch {
        let keys = keys ?? (0..<edits).map { "{\(id)-\($0)}" }
        let edits = keys.enumerated().map { offset, key in
            JournalEdit(
                planned: PlannedEdit(
                    position: InputPosition(index: id * 100 + offset), kind: .add, layer: 0, globalId: key, objectId: nil, payload: "{}", source: ""),
                batch: id, status: .pending)
        }
        return JournalBatch(id: id, layer: 0, useGlobalIds: true, state: .planned, edits: edits, barrier: barrier)
    }

    /// `batch` answered, each edit with `status` (all applied unless `failing` names the edits that failed).
    static func answered(_ batch: JournalBatch, failing: Set<Int> = []) -> Machine.Event {
        var result = BatchApplier.BatchResult(id: batch.id, layer: batch.layer, requests: 1)
        result.records = batch.edits.enumerated().map { offset, edit in
            EditRecord(index: edit.planned.position.index, status: failing.contains(offset) ? .failed : .applied, objectId: Int64(offset + 1))
        }
        return .answered(result)
    }

    /// `batch` gave up because the service could not be reached; `inDoubt` when an attempt may have reached it.
    static func unreachable(_ batch: JournalBatch, inDoubt: Bool, reason: String = "HTTP 503") -> Machine.Event {
        .answered(BatchApplier.BatchResult(id: batch.id, layer: batch.layer, state: inDoubt ? .sending : .done, requests: 8, unavailable: reason))
    }

    static func cancelled(_ batch: JournalBatch) -> Machine.Event {
        .answered(BatchApplier.BatchResult(id: batch.id, layer: batch.layer, cancelled: true))
    }
}

extension ApplyDispatchMachine.Action where Instant == ManualClock.Instant {
    /// The action in a few words: `send 3 after 1,2`, `probe 0 at 3000ms`, `report 2/6 unavailable`.
    var text: String {
        func ms(_ instant: Instant) -> String { "\(Int(instant.offset / .milliseconds(1)))ms" }
        func ids(_ ids: [Int]) -> String {
            ids.count > 3 && ids == Array(ids[0]...ids[ids.count - 1])
                ? "\(ids[0])…\(ids[ids.count - 1])" : ids.map(String.init).joined(separator: ",")
        }
        func after(_ outcomes: ApplyDispatchMachine.Outcomes) -> String {
            outcomes.edits.isEmpty ? "" : " after \(ids(outcomes.edits.map(\.batch)))"
        }
        switch self {
        case .lookUp(let batch, let waiting): return "lookUp \(batch)\(waiting ? " waiting" : "")"
        case .listOpen: return "listOpen"
        case .awaitPlan: return "awaitPlan"
        case .read(let batches): return "read \(ids(batches))"
        case .sleep(let until): return "sleep until \(ms(until))"
        case .send(let batch, let outcomes): return "send \(batch.id)\(after(outcomes))"
        case .awaitAnswer: return "awaitAnswer"
        case .record(let outcomes): return "record\(outcomes.edits.isEmpty ? "" : " " + ids(outcomes.edits.map(\.batch)))"
        case .report(let progress):
            return
                "report \(progress.settled)/\(progress.total)\(progress.planning ? " planning" : "")\(progress.unavailable != nil ? " unavailable" : "")"
        case .probe(let layer, let at): return "probe \(layer) at \(ms(at))"
        case .finish: return "finish"
        }
    }
}
