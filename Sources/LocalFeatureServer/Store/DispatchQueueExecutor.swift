import Dispatch

/// A serial executor on a dedicated dispatch queue.
///
/// The store actor runs on it so that its synchronous SQLite work (one transaction per applyEdits) blocks this
/// queue's thread, never one of the cooperative pool's threads, which on a two-core machine are also serving
/// HTTP and, in `featureload run`, the load generator itself (the pattern of GRDB's `DispatchQueueActor`).
final class DispatchQueueExecutor: SerialExecutor, @unchecked Sendable {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    func enqueue(_ job: UnownedJob) {
        queue.async {
            job.runSynchronously(on: self.asUnownedSerialExecutor())
        }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func checkIsolated() {
        dispatchPrecondition(condition: .onQueue(queue))
    }
}
