internal import CCurl

#if canImport(Glibc)
import Glibc
#endif

extension CurlMulti {
    /// Ends the driver's wait for readiness; safe from any thread.
    func wake() {
        #if os(Linux)
        readiness.signal()
        #else
        curl_multi_wakeup(multi)
        #endif
    }
}

#if os(Linux)
extension CurlMulti {
    /// Lets libcurl work on the transfers whose timer is due: those just added, and those waiting for a timeout.
    func act(_ clock: ContinuousClock) {
        guard let due = readiness.timerDue, due <= clock.now else { return }
        readiness.timerDue = nil  // a one-shot timer: libcurl sets the next one from inside the call
        var running: Int32 = 0
        _ = curl_multi_socket_action(multi, ccurl_socket_timeout(), 0, &running)
        failUnwatchable()
    }

    /// Waits for ready sockets (only when `sleep`; otherwise looks without waiting), hands those libcurl wants to
    /// libcurl and completes the transfers that finished.
    func waitForReadiness(sleep: Bool, _ clock: ContinuousClock) {
        let timeout = sleep ? readiness.sleepMilliseconds(clock) : 0
        let handed = withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * ReadinessSet.batch) { buffer -> Int in
            let descriptors = buffer.baseAddress!
            let bits = descriptors + ReadinessSet.batch
            let count = Int(ccurl_epoll_wait(readiness.epoll, descriptors, bits, Int32(ReadinessSet.batch), timeout))
            var handed = 0
            var running: Int32 = 0
            for index in 0..<max(0, count) where readiness.wants(descriptors[index]) {
                _ = curl_multi_socket_action(multi, descriptors[index], bits[index], &running)
                handed += 1
            }
            return handed
        }
        failUnwatchable()
        if handed > 0 { collectCompleted() }
    }

    /// Tells libcurl of an error on each socket the set could not take, so its transfer fails now rather than at
    /// its timeout.
    private func failUnwatchable() {
        var running: Int32 = 0
        while let socket = readiness.unwatchable.popLast() {
            _ = curl_multi_socket_action(multi, socket, CURL_CSELECT_ERR, &running)
        }
    }
}

/// What the driver waits on: libcurl's sockets in one epoll set, the wakeup other threads signal, and libcurl's
/// timer.
///
/// libcurl asks for a socket to be watched while a transfer wants it, stops asking when a keep-alive connection
/// goes back to its cache, and asks again when the next transfer reuses it. Following that to the letter costs two
/// `epoll_ctl` calls a request (a removal and an addition). So a socket libcurl stops asking for stays in the set:
/// readiness nobody wants (the service closed an idle connection) takes it out then, and closing it takes it out
/// anyway. A request then costs one call, a change of what is watched. That call is never skipped, even when
/// nothing seems to change: libcurl 7.88 does not say when it closes every socket (not the resolver's, nor one
/// that never finished connecting), so a number closed and reused may look registered when it is not; the change
/// then fails (ENOENT) and the socket is added instead.
///
/// A socket that cannot be watched (`epoll_ctl` failing: out of memory, or of epoll watches) is not refused to
/// libcurl, which would give up the whole multi handle; its transfer is told of an error instead
/// (``unwatchable``).
///
/// Driver thread only, except ``signal()``. libcurl's callbacks reach it unretained: it outlives the multi handle,
/// since ``CurlMulti`` cleans that up in its deinit body, before its stored properties go.
final class ReadinessSet: @unchecked Sendable {
    /// Ready descriptors taken from the set per wait.
    static let batch = 64
    let epoll: Int32
    let wakeup: Int32
    /// When libcurl next wants `curl_multi_socket_action(CURL_SOCKET_TIMEOUT)` (`CURLMOPT_TIMERFUNCTION`); nil
    /// when it wants none.
    var timerDue: ContinuousClock.Instant?
    /// Sockets the set could not take: the driver tells libcurl they failed once its call returns.
    var unwatchable: [Int32] = []
    /// Per descriptor number: the interest registered in the set (``interestBits``: `CURL_POLL_IN`, `_OUT`; 0 when
    /// not in it, as far as the driver knows) and whether libcurl wants the socket watched now (``wanted``).
    private var states: [UInt8] = []
    private static let interestBits: UInt8 = 3
    private static let wanted: UInt8 = 4

    init() throws(TransportError) {
        let epoll = ccurl_epoll_create()
        let wakeup = ccurl_wakeup_create()
        guard epoll >= 0, wakeup >= 0, ccurl_epoll_watch(epoll, wakeup, CURL_POLL_IN, 0) == 0 else {
            let error = errno
            if epoll >= 0 { close(epoll) }
            if wakeup >= 0 { close(wakeup) }
            throw TransportError(.other, url: "", message: "cannot make the driver's event set (errno \(error))", mayHaveBeenSent: false)
        }
        self.epoll = epoll
        self.wakeup = wakeup
    }

    deinit {
        close(epoll)
        close(wakeup)
    }

    /// The pointer libcurl passes back to the callbacks.
    var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Makes `multi` report its sockets and timer here.
    func attach(to multi: UnsafeMutableRawPointer) {
        _ = ccurl_multi_setopt_socket_callback(multi, watchSocket)
        _ = ccurl_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, context)
        _ = ccurl_multi_setopt_timer_callback(multi, setTimer)
        _ = ccurl_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, context)
    }

    /// Ends the driver's wait; safe from any thread.
    func signal() { ccurl_wakeup_signal(wakeup) }

    /// How long a sleeping driver may wait: until libcurl's timer, at most a second.
    func sleepMilliseconds(_ clock: ContinuousClock) -> Int32 {
        guard let due = timerDue else { return 1000 }
        let (seconds, attoseconds) = clock.now.duration(to: due).components
        // Rounded up: waking before the timer is due would only wait again.
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: max(0, min(1000, milliseconds)))
    }

    /// Whether libcurl wants to hear that `socket` is ready. The wakeup is drained instead; a socket libcurl no
    /// longer asks for (an idle connection the service closed) leaves the set.
    func wants(_ socket: Int32) -> Bool {
        if socket == wakeup {
            ccurl_wakeup_drain(wakeup)
            return false
        }
        let index = Int(socket)
        guard index >= 0, index < states.count else { return true }
        if states[index] & Self.wanted != 0 { return true }
        _ = ccurl_epoll_forget(epoll, socket)
        states[index] = 0
        return false
    }

    /// `CURLMOPT_SOCKETFUNCTION`: libcurl wants `socket` watched for `what`, or no longer (`CURL_POLL_REMOVE`).
    func watch(_ socket: Int32, what: Int32) {
        let index = Int(socket)
        guard index >= 0 else { return }
        if index >= states.count { states.append(contentsOf: repeatElement(0, count: max(index + 1, 64) - states.count)) }
        let registered = states[index] & Self.interestBits
        if what == CURL_POLL_REMOVE {
            states[index] = registered  // stays in the set, no longer wanted (see the type's comment)
            return
        }
        let interest = UInt8(truncatingIfNeeded: what) & Self.interestBits
        guard ccurl_epoll_watch(epoll, socket, Int32(interest), registered == 0 ? 0 : 1) == 0 else {
            states[index] = 0
            unwatchable.append(socket)
            return
        }
        states[index] = interest | Self.wanted
    }
}

/// `CURLMOPT_SOCKETFUNCTION`; `userp` is the unretained ``ReadinessSet``. Never -1: libcurl 7.88 would give up
/// the whole multi handle.
private let watchSocket: curl_socket_callback = { _, socket, what, userp, _ in
    if let userp { Unmanaged<ReadinessSet>.fromOpaque(userp).takeUnretainedValue().watch(socket, what: what) }
    return 0
}

/// `CURLMOPT_TIMERFUNCTION`: when libcurl next wants a timeout call; -1 cancels the timer. Never -1 back, for the
/// same reason.
private let setTimer: curl_multi_timer_callback = { _, milliseconds, userp in
    guard let userp else { return 0 }
    let set = Unmanaged<ReadinessSet>.fromOpaque(userp).takeUnretainedValue()
    set.timerDue = milliseconds < 0 ? nil : ContinuousClock.now.advanced(by: .milliseconds(Int64(milliseconds)))
    return 0
}
#else
extension CurlMulti {
    /// Lets libcurl work on every transfer.
    func act(_ clock: ContinuousClock) {
        var running: Int32 = 0
        _ = curl_multi_perform(multi, &running)
    }

    /// Sleeps in libcurl until a socket is ready, its next timeout or a wakeup (only when `sleep`).
    func waitForReadiness(sleep: Bool, _ clock: ContinuousClock) {
        guard sleep else { return }
        var descriptors: Int32 = 0
        _ = curl_multi_poll(multi, nil, 0, 1000, &descriptors)
    }
}
#endif
