package import Foundation
import GRDB

/// Copies an SQLite database's write-ahead log into its file every `interval`, on a thread and connection of its own,
/// while the database is open: the local service's store and apply's journal each keep one.
///
/// SQLite otherwise does this copy (a checkpoint) on the writer's connection, right after the commit that fills the log
/// past `wal_autocheckpoint` pages, and syncs the file twice while the next write waits; and again when the database
/// is closed (for a journal: at the end of a run, while the user waits for the command to end). Adds with random
/// GlobalIDs dirty an index page nearly each, so the store's log fills many times faster than with plain adds, and
/// those syncs were most of what they cost beyond plain adds. Here the writer never waits for them: a passive
/// checkpoint never holds up the writer and never waits for it; a failed one is left to the next one, or to SQLite's
/// own past its threshold.
///
/// An idle database is looked at less and less often: each look that finds nothing new in the log, and all of it
/// copied, doubles the wait up to `idleInterval`; a look that finds new pages goes back to `interval`.
///
/// `@unchecked Sendable`: `stopped`, `running` and `looks` are read and written only with `condition` locked.
package final class WALCheckpointer: @unchecked Sendable {
    private let condition = NSCondition()
    private var stopped = false
    private var running = true
    private var looks = 0

    /// The checkpoints made so far.
    package var checkpoints: Int {
        condition.lock()
        defer { condition.unlock() }
        return looks
    }

    /// Starts checkpointing the database at `path` (in WAL mode) every `interval` seconds while it is written, and at
    /// most every `idleInterval` seconds while it is not, on a thread named `label`; nil when no connection to it can
    /// be opened (SQLite's own checkpoints go on).
    package init?(path: String, label: String, interval: TimeInterval = 0.05, idleInterval: TimeInterval = 1) {
        var configuration = Configuration()
        configuration.label = label
        configuration.busyMode = .immediateError
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        guard let database = try? DatabaseQueue(path: path, configuration: configuration) else { return nil }
        let thread = Thread { [self] in loop(database, interval: interval, idleInterval: max(interval, idleInterval)) }
        thread.stackSize = 256 << 10
        thread.name = label
        thread.start()
    }

    /// Ends the thread, once its checkpoint under way is done; returns once it has ended and closed its connection.
    /// A second call returns at once.
    package func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }

    private func loop(_ database: DatabaseQueue, interval: TimeInterval, idleInterval: TimeInterval) {
        var wait = interval
        var logged = -1
        condition.lock()
        while !stopped {
            if !condition.wait(until: Date(timeIntervalSinceNow: wait)) {
                condition.unlock()
                let frames = try? database.writeWithoutTransaction { db in try db.checkpoint(.passive) }
                let idle = frames.map { $0.walFrameCount == logged && $0.checkpointedFrameCount == $0.walFrameCount } ?? false
                wait = idle ? min(wait * 2, idleInterval) : interval
                logged = frames?.walFrameCount ?? -1
                condition.lock()
                looks += 1
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
