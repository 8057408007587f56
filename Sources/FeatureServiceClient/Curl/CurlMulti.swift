internal import CCurl
import Synchronization

import class Foundation.Thread

#if canImport(Glibc)
import Glibc
#endif

/// The libcurl multi driver: one `CURLM` handle, a pool of easy handles, and the one thread that drives them.
///
/// ```
///  send() ──▶ inbox (Mutex) ──swap──▶ driver thread: add_handle ▶ socket_action ▶ info_read ▶ resume continuation
///  onCancel ─▶ inbox.cancellations ─▶ driver thread: remove_handle ▶ resume(CancellationError)
///  a wakeup ends the driver's wait whenever it sleeps and work arrives
/// ```
///
/// **Readiness, not rounds (Linux).** The driver keeps libcurl's sockets in its own epoll set (libcurl says which
/// through `CURLMOPT_SOCKETFUNCTION`, and when it next needs time through `CURLMOPT_TIMERFUNCTION`) and hands
/// libcurl only the sockets that are ready (`curl_multi_socket_action`); see ``ReadinessSet``. `curl_multi_perform`
/// instead visits every transfer on every round and polls each one's socket: 2.9 `poll` calls and a `curl_multi_poll`
/// round a single-add request at 8 connections, against 2.0 `poll` (libcurl's own checks) and one `epoll_ctl` now, and
/// 16 % more client CPU a request at 256 connections. Elsewhere the driver keeps `curl_multi_perform` and
/// `curl_multi_poll`.
///
/// **Single-thread rule.** Every libcurl call on the multi handle and on easy handles runs on the driver
/// thread, with two exceptions: the wakeup (`wake()`, thread-safe), and `curl_multi_cleanup` in
/// `deinit`, which runs after the driver thread has finished. Other threads touch only `inbox` (a `Mutex`) and
/// the `Atomic` counters. No lock is held while libcurl transfers data: the driver holds the inbox lock only to
/// swap the queues. That rule is why the class is `@unchecked Sendable`.
///
/// Lifetime: the thread keeps the driver alive until it stops; it stops on ``shutdown()`` or ``requestStop()``,
/// failing outstanding transfers with ``TransportError/Kind/shutdown``.
final class CurlMulti: @unchecked Sendable {
    struct Inbox {
        var submissions: [CurlTransfer] = []
        var cancellations: [CurlTransfer] = []
        /// Jobs of tasks that prefer this driver as their executor (``CurlTransport/taskExecutor``).
        var jobs: [UnownedJob] = []
        /// The driver is in, or about to enter, `curl_multi_poll` and needs a wakeup for new work.
        var driverSleeping = false
        var stopRequested = false
        /// The driver has failed every transfer and released every easy handle.
        var finished = false
        var shutdownWaiters: [CheckedContinuation<Void, Never>] = []

        /// Whether whoever just queued work must wake the driver (it sleeps, and is now marked awake).
        mutating func takeWake() -> Bool {
            guard driverSleeping else { return false }
            driverSleeping = false
            return true
        }
    }

    let configuration: CurlTransportConfiguration
    /// The `CURLM *`.
    let multi: UnsafeMutableRawPointer
    let inbox = Mutex(Inbox())
    let connectionsOpened = Atomic<Int>(0)
    let transfersCompleted = Atomic<Int>(0)

    // Driver-thread state.
    var active: [UnsafeMutableRawPointer: CurlEasyHandle] = [:]
    var idle: [CurlEasyHandle] = []
    var headerListCache: [[HTTPHeader]: UnsafeMutablePointer<curl_slist>] = [:]
    /// Response header fields seen lately, whose strings the next responses share.
    var recentHeaders = RecentHeaders()
    /// Precomputed per-request option values.
    let connectTimeoutMilliseconds: Int
    let defaultTimeoutMilliseconds: Int
    /// The per-transfer connection options (HTTP version, TLS, proxy), derived once from the configuration.
    let connectionOptions: CurlConnectionOptions
    /// The most idle easy handles kept for reuse.
    let idleLimit: Int
    static let headerListCacheLimit = 32
    /// In-memory POST bodies up to this size go out in the same write as the head (libcurl 7.88 joins a body under
    /// 64 KiB given whole); larger ones are streamed after it.
    static let singleSendLimit = 32 << 10
    /// How long queued jobs of tasks on this thread run before libcurl's next round: the most a response waits,
    /// unread and still being timed, behind other tasks' work (beyond the one job running when it arrived).
    static let jobBudget = Duration.microseconds(100)

    #if os(Linux)
    /// libcurl's sockets and the driver's wakeup, waited on together.
    let readiness: ReadinessSet
    #endif

    init(configuration: CurlTransportConfiguration) throws(TransportError) {
        guard CurlGlobal.initialized else {
            throw TransportError(.other, url: "", message: "curl_global_init failed", mayHaveBeenSent: false)
        }
        guard let multi = curl_multi_init() else {
            throw TransportError(.other, url: "", message: "curl_multi_init failed", mayHaveBeenSent: false)
        }
        #if os(Linux)
        do {
            readiness = try ReadinessSet()
        } catch {
            curl_multi_cleanup(multi)
            throw error
        }
        #endif
        self.configuration = configuration
        self.multi = multi
        let connections = max(1, configuration.maxConnections)
        connectTimeoutMilliseconds = configuration.connectTimeout.curlMilliseconds
        defaultTimeoutMilliseconds = configuration.requestTimeout.curlMilliseconds
        connectionOptions = CurlConnectionOptions(configuration)
        idleLimit = max(64, connections * 4)
        // Keep-alive connections survive only while the cache holds them; by default it holds 4 × the handles
        // currently added, and a handle leaves as soon as its transfer ends (swift-stack.md §1: 953 vs 64 connects).
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, connections)
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, connections)
        configureMultiplexing()
        active.reserveCapacity(connections * 2)
        #if os(Linux)
        readiness.attach(to: multi)
        #endif
    }

    deinit {
        // The driver thread held a strong reference until it finished, so it is gone by now.
        for handle in idle { handle.destroy() }
        for list in headerListCache.values { curl_slist_free_all(list) }
        // Closes the cached connections, through ``readiness`` (still alive: stored properties outlive this body).
        curl_multi_cleanup(multi)
    }

    /// Starts the driver thread; called once, right after init.
    func start() {
        let thread = Thread { [self] in
            // Named for `top -H` and /proc/self/task/*/comm (15 characters), to watch the driver's CPU.
            ccurl_name_current_thread("featureload-crl")
            run()
        }
        thread.start()
    }

    // MARK: Any thread

    /// Queues `transfer` (its continuation attached) for the driver; fails it at once when the task is already
    /// cancelled or the transport is shutting down.
    func submit(_ transfer: CurlTransfer) {
        enum Outcome { case queued, queuedAndWake, cancelled, shutDown }
        let outcome = inbox.withLock { box -> Outcome in
            if box.stopRequested { return .shutDown }
            // Checked under the lock: a cancellation handler that runs after this finds the transfer queued.
            if Task.isCancelled { return .cancelled }
            box.submissions.append(transfer)
            return box.takeWake() ? .queuedAndWake : .queued
        }
        switch outcome {
        case .queued: break
        case .queuedAndWake: wake()
        case .cancelled: transfer.resume(throwing: CancellationError())
        case .shutDown:
            transfer.resume(throwing: TransportError(.shutdown, url: transfer.request.url, mayHaveBeenSent: false))
        }
    }

    /// Cancels `transfer`: removes it from the queue, or asks the driver to abort it if libcurl has it.
    func cancel(_ transfer: CurlTransfer) {
        enum Outcome { case none, wake, dequeued }
        let outcome = inbox.withLock { box -> Outcome in
            if let index = box.submissions.firstIndex(where: { $0 === transfer }) {
                box.submissions.remove(at: index)
                return .dequeued
            }
            if box.stopRequested { return .none }  // teardown fails it
            box.cancellations.append(transfer)
            return box.takeWake() ? .wake : .none
        }
        switch outcome {
        case .none: break
        case .wake: wake()
        case .dequeued: transfer.resume(throwing: CancellationError())
        }
    }

    /// Asks the driver to stop without waiting for it.
    func requestStop() {
        let wake = inbox.withLock { box -> Bool in
            if box.stopRequested { return false }
            box.stopRequested = true
            return true
        }
        if wake { self.wake() }
    }

    /// Stops the driver and waits until it has failed outstanding transfers and released its handles.
    func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = inbox.withLock { box -> Bool in
                if box.finished { return true }
                box.stopRequested = true
                box.shutdownWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() } else { wake() }
        }
    }

    // MARK: Driver thread

    private func run() {
        var incoming: [CurlTransfer] = []
        var cancelled: [CurlTransfer] = []
        // Jobs taken from the inbox, in order; those before `nextJob` have run.
        var runnable: [UnownedJob] = []
        var nextJob = 0
        incoming.reserveCapacity(64)
        runnable.reserveCapacity(64)
        let executor = asUnownedTaskExecutor()
        let clock = ContinuousClock()
        while true {
            // Tasks running here submit their requests without waking anyone: the loop picks them up below. They run
            // for at most `jobBudget` before libcurl's next round, so a response that has arrived is read (and timed)
            // without waiting for every queued task.
            inbox.withLock { box in
                guard !box.jobs.isEmpty else { return }
                runnable.append(contentsOf: box.jobs)
                box.jobs.removeAll(keepingCapacity: true)
            }
            if nextJob < runnable.count {
                let deadline = clock.now.advanced(by: Self.jobBudget)
                repeat {
                    runnable[nextJob].runSynchronously(on: executor)
                    nextJob += 1
                } while nextJob < runnable.count && clock.now < deadline
                if nextJob == runnable.count {
                    runnable.removeAll(keepingCapacity: true)
                    nextJob = 0
                } else if nextJob >= 1024 {
                    runnable.removeFirst(nextJob)
                    nextJob = 0
                }
            }
            let jobsWaiting = nextJob < runnable.count
            let stop = inbox.withLock { box -> Bool in
                swap(&box.submissions, &incoming)
                swap(&box.cancellations, &cancelled)
                box.driverSleeping = false
                return box.stopRequested
            }
            for transfer in incoming { begin(transfer) }
            incoming.removeAll(keepingCapacity: true)
            for transfer in cancelled { abort(transfer) }
            cancelled.removeAll(keepingCapacity: true)
            if stop { break }

            act(clock)
            collectCompleted()

            let sleep = inbox.withLock { box -> Bool in
                guard !jobsWaiting, box.submissions.isEmpty, box.cancellations.isEmpty, box.jobs.isEmpty, !box.stopRequested else { return false }
                box.driverSleeping = true
                return true
            }
            waitForReadiness(sleep: sleep, clock)
        }
        tearDown(unrun: runnable[nextJob...])
    }

    /// Adds a transfer to the multi handle, or fails it.
    private func begin(_ transfer: CurlTransfer) {
        guard let handle = idle.popLast() ?? CurlEasyHandle() else {
            transfer.resume(
                throwing: TransportError(.other, url: transfer.request.url, message: "curl_easy_init failed", mayHaveBeenSent: false))
            return
        }
        let code = configure(handle, for: transfer.request)
        guard code == CURLE_OK else {
            fail(handle, transfer, code: code)
            return
        }
        handle.transfer = transfer
        transfer.handle = handle
        guard curl_multi_add_handle(multi, handle.easy) == CURLM_OK else {
            handle.transfer = nil
            transfer.handle = nil
            fail(handle, transfer, code: CURLE_FAILED_INIT)
            return
        }
        active[handle.easy] = handle
    }

    private func fail(_ handle: CurlEasyHandle, _ transfer: CurlTransfer, code: CURLcode) {
        let error = TransportError(curlCode: code, message: handle.errorMessage, url: transfer.request.url, requestBytes: 0)
        pool(handle)
        transfer.resume(throwing: error)
    }

    /// Aborts an active transfer whose task was cancelled; ignores transfers that already finished.
    private func abort(_ transfer: CurlTransfer) {
        guard let handle = transfer.handle, active.removeValue(forKey: handle.easy) != nil else { return }
        curl_multi_remove_handle(multi, handle.easy)
        transfer.handle = nil
        pool(handle)
        transfer.resume(throwing: CancellationError())
    }

    /// Drains `curl_multi_info_read` and completes every finished transfer.
    func collectCompleted() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            // Read the result before remove_handle: removing invalidates the message.
            let result = ccurl_message_result(message)
            guard let handle = active.removeValue(forKey: easy) else {
                curl_multi_remove_handle(multi, easy)
                continue
            }
            complete(handle, result: result)
        }
    }

    /// Returns a handle to the pool, or destroys it when the pool is full.
    func pool(_ handle: CurlEasyHandle) {
        handle.recycle()
        if idle.count < idleLimit { idle.append(handle) } else { handle.destroy() }
    }

    /// Fails what is outstanding and releases the handles; `unrun` jobs, and those queued since, go to the global
    /// executor.
    private func tearDown(unrun: ArraySlice<UnownedJob>) {
        let leftovers = inbox.withLock { box -> [CurlTransfer] in
            defer {
                box.submissions = []
                box.cancellations = []
            }
            return box.submissions
        }
        for (easy, handle) in active {
            curl_multi_remove_handle(multi, easy)
            let transfer = handle.transfer
            transfer?.handle = nil
            handle.destroy()
            transfer?.resume(throwing: TransportError(.shutdown, url: transfer?.request.url ?? "", mayHaveBeenSent: true))
        }
        active = [:]
        for transfer in leftovers {
            transfer.resume(throwing: TransportError(.shutdown, url: transfer.request.url, mayHaveBeenSent: false))
        }
        for handle in idle { handle.destroy() }
        idle = []
        let (waiters, jobs) = inbox.withLock { box -> ([CheckedContinuation<Void, Never>], [UnownedJob]) in
            box.finished = true
            defer {
                box.shutdownWaiters = []
                box.jobs = []
            }
            return (box.shutdownWaiters, box.jobs)
        }
        // Tasks that preferred this driver go on on the global executor.
        for job in unrun { globalConcurrentExecutor.enqueue(job) }
        for job in jobs { globalConcurrentExecutor.enqueue(job) }
        for waiter in waiters { waiter.resume() }
    }
}

extension CurlMulti: TaskExecutor {
    /// Runs `job` on the driver thread between libcurl's rounds, or on the global executor once the driver has stopped.
    ///
    /// A task whose requests follow one another (a VU) runs best here: its response resumes it on the thread that
    /// received it, and its next request is queued without waking another thread.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        enum Outcome { case queued, queuedAndWake, finished }
        let outcome = inbox.withLock { box -> Outcome in
            if box.finished { return .finished }
            box.jobs.append(job)
            return box.takeWake() ? .queuedAndWake : .queued
        }
        switch outcome {
        case .queued: break
        case .queuedAndWake: wake()
        case .finished: globalConcurrentExecutor.enqueue(job)
        }
    }
}

/// `curl_global_init`, run once.
enum CurlGlobal {
    static let initialized: Bool = curl_global_init(ccurl_global_all()) == CURLE_OK
}
