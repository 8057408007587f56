import Foundation
import GRDB

/// Copies the journal's write-ahead log into its file every `interval`, on a thread and connection of its own, while
/// the journal is open.
///
/// SQLite does this copy (a checkpoint) itself once the log holds about 16 MB, and again when the journal is closed:
/// at the end of a run, with up to 16 MB left to copy and sync while the user waits for the command to end (a tenth of
/// a second at 100,000 edits, 6 % of the run). Done here as the log grows, little is left for the close. A passive
/// checkpoint never waits for the journal's writer and never holds it up; a failed one is left to the next or to
/// SQLite's own.
///
/// `@unchecked Sendable`: `stopped` is read and written only with `condition` locked.
final class JournalCheckpointer: @unchecked Sendable {
    private let condition = NSCondition()
    private var stopped = false
    private var running = true

    /// Starts checkpointing the journal at `path` (in WAL mode) every `interval` seconds; nil when no connection to it
    /// can be opened (SQLite's own checkpoints go on as before).
    init?(path: String, interval: TimeInterval = 0.05) {
        var configuration = Configuration()
        configuration.busyMode = .immediateError
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        guard let database = try? DatabaseQueue(path: path, configuration: configuration) else { return nil }
        let thread = Thread { [self] in loop(database, interval: interval) }
        thread.stackSize = 256 << 10
        thread.start()
    }

    /// Ends the thread, once its checkpoint under way is done; returns once it has ended and closed its connection.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }

    private func loop(_ database: DatabaseQueue, interval: TimeInterval) {
        condition.lock()
        while !stopped {
            if !condition.wait(until: Date(timeIntervalSinceNow: interval)) {
                condition.unlock()
                try? database.writeWithoutTransaction { db in try db.checkpoint(.passive) }
                condition.lock()
            }
        }
        condition.unlock()
        try? database.close()
        condition.lock()
        running = false
        condition.broadcast()
        condition.unlock()
    }
}
