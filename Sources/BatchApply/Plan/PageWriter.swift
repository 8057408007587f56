import Foundation

/// Writes the plan's pages to the journal on a thread of its own, in the order given, while the planner reads and
/// checks the next records: with a core to spare the planning pass takes about as long as the longer of the two, not
/// their sum.
///
/// At most `capacity` pages wait (memory stays bounded: the planner blocks until one is written). The first error
/// stops the writing; it is thrown by the next ``submit(_:)`` or by ``finish()``, and later pages are dropped.
/// ``close()`` must be called once, after which the thread has ended (pages already given are written first).
///
/// `@unchecked Sendable`: every stored variable is read and written only with `condition` locked.
final class PageWriter: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [@Sendable () throws -> Void] = []
    private var failure: (any Error)?
    private var writing = false
    private var closed = false
    private var running = true
    private let capacity: Int

    init(capacity: Int = 4) {
        self.capacity = capacity
        let thread = Thread { self.loop() }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Queues `write`, waiting while `capacity` pages wait already.
    /// - Throws: The error of an earlier write.
    func submit(_ write: @escaping @Sendable () throws -> Void) throws {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= capacity && failure == nil { condition.wait() }
        if let failure { throw failure }
        queue.append(write)
        condition.broadcast()
    }

    /// Waits until every page given is written.
    /// - Throws: The first error of a write.
    func finish() throws {
        condition.lock()
        defer { condition.unlock() }
        while (!queue.isEmpty || writing) && failure == nil { condition.wait() }
        if let failure { throw failure }
    }

    /// Writes what waits (unless a write failed), then ends the thread; returns once it has ended.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }

    private func loop() {
        condition.lock()
        while true {
            while queue.isEmpty && !closed { condition.wait() }
            if queue.isEmpty { break }
            let write = queue.removeFirst()
            writing = true
            condition.unlock()
            var error: (any Error)?
            do { try write() } catch let thrown { error = thrown }
            condition.lock()
            writing = false
            if let error, failure == nil {
                failure = error
                queue.removeAll()
            }
            condition.broadcast()
        }
        running = false
        condition.broadcast()
        condition.unlock()
    }
}
