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
            if handed > 0 { collectCompleted() }
        }

        /// Sets the callbacks through which libcurl opens and closes its connections' sockets on `easy`, after
        /// `curl_easy_reset`. A connection keeps those of the transfer that opened it.
        func configureSockets(_ easy: UnsafeMutableRawPointer) {
            let context = readiness.context
            _ = ccurl_easy_setopt_opensocket_callback(easy, openSocket)
            _ = ccurl_easy_setopt_pointer(easy, CURLOPT_OPENSOCKETDATA, context)
            _ = ccurl_easy_setopt_closesocket_callback(easy, closeSocket)
            _ = ccurl_easy_setopt_pointer(easy, CURLOPT_CLOSESOCKETDATA, context)
        }
    }

    /// What the driver waits on: libcurl's sockets in one epoll set, the wakeup other threads signal, and libcurl's
    /// timer.
    ///
    /// libcurl asks for a socket to be watched while a transfer wants it, stops asking when a keep-alive connection
    /// goes back to its cache, and asks again when the next transfer reuses it. Following that to the letter costs two
    /// `epoll_ctl` calls a request. So a socket libcurl opened through ``openSocket`` (a connection, whose closing it
    /// reports through ``closeSocket``) stays in the set while idle: readiness nobody wants (the service closed an
    /// idle connection) takes it out then, and its closing forgets it, as the kernel does. Other sockets (the
    /// resolver's) are followed to the letter, since nobody says when they close and their numbers are reused.
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
        /// Per descriptor number: the interest registered in the set (``interestBits``: `CURL_POLL_IN`, `_OUT`),
        /// whether libcurl wants the socket watched now (``wanted``) and whether it came from ``openSocket``
        /// (``connection``).
        private var states: [UInt8] = []
        private static let interestBits: UInt8 = 3
        private static let wanted: UInt8 = 4
        private static let connection: UInt8 = 8

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

        /// Whether libcurl wants to hear that `socket` is ready. The wakeup is drained instead; an idle connection
        /// that shows readiness (closed by the service) leaves the set until libcurl asks for it again.
        func wants(_ socket: Int32) -> Bool {
            if socket == wakeup {
                ccurl_wakeup_drain(wakeup)
                return false
            }
            let index = Int(socket)
            guard index < states.count else { return true }
            let state = states[index]
            if state & Self.wanted != 0 { return true }
            _ = ccurl_epoll_forget(epoll, socket)
            states[index] = state & Self.connection
            return false
        }

        /// `CURLMOPT_SOCKETFUNCTION`: libcurl wants `socket` watched for `what`, or no longer (`CURL_POLL_REMOVE`).
        func watch(_ socket: Int32, what: Int32) -> Int32 {
            let index = Int(socket)
            guard index >= 0 else { return -1 }
            if index >= states.count { states.append(contentsOf: repeatElement(0, count: max(index + 1, 64) - states.count)) }
            let state = states[index]
            let registered = state & Self.interestBits
            if what == CURL_POLL_REMOVE {
                if state & Self.connection != 0 {
                    states[index] = state & ~Self.wanted
                    return 0
                }
                states[index] = 0
                return registered == 0 ? 0 : ccurl_epoll_forget(epoll, socket)
            }
            let interest = UInt8(truncatingIfNeeded: what) & Self.interestBits
            if registered != interest || state & Self.connection == 0 {
                guard ccurl_epoll_watch(epoll, socket, Int32(interest), registered == 0 ? 0 : 1) == 0 else { return -1 }
            }
            states[index] = (state & Self.connection) | interest | Self.wanted
            return 0
        }

        /// libcurl opened `socket` for a connection (``openSocket``).
        func opened(_ socket: Int32) {
            let index = Int(socket)
            if index >= states.count { states.append(contentsOf: repeatElement(0, count: max(index + 1, 64) - states.count)) }
            states[index] = Self.connection
        }

        /// libcurl is closing `socket` (``closeSocket``); closing takes it out of the set.
        func closing(_ socket: Int32) {
            let index = Int(socket)
            if index >= 0 && index < states.count { states[index] = 0 }
        }
    }

    /// `CURLMOPT_SOCKETFUNCTION`; `userp` is the unretained ``ReadinessSet``.
    private let watchSocket: curl_socket_callback = { _, socket, what, userp, _ in
        guard let userp else { return -1 }
        return Unmanaged<ReadinessSet>.fromOpaque(userp).takeUnretainedValue().watch(socket, what: what)
    }

    /// `CURLMOPT_TIMERFUNCTION`: when libcurl next wants a timeout call; -1 cancels the timer.
    private let setTimer: curl_multi_timer_callback = { _, milliseconds, userp in
        guard let userp else { return -1 }
        let set = Unmanaged<ReadinessSet>.fromOpaque(userp).takeUnretainedValue()
        set.timerDue = milliseconds < 0 ? nil : ContinuousClock.now.advanced(by: .milliseconds(Int64(milliseconds)))
        return 0
    }

    /// `CURLOPT_OPENSOCKETFUNCTION`: opens the socket as libcurl would, and notes it as a connection.
    private let openSocket: curl_opensocket_callback = { clientp, _, address in
        guard let clientp, let address else { return CURL_SOCKET_BAD }
        let socket = ccurl_open_socket(address)
        if socket >= 0 { Unmanaged<ReadinessSet>.fromOpaque(clientp).takeUnretainedValue().opened(socket) }
        return socket
    }

    /// `CURLOPT_CLOSESOCKETFUNCTION`: forgets the socket, then closes it.
    private let closeSocket: curl_closesocket_callback = { clientp, socket in
        if let clientp { Unmanaged<ReadinessSet>.fromOpaque(clientp).takeUnretainedValue().closing(socket) }
        return close(socket)
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

        /// libcurl opens and closes sockets itself here.
        func configureSockets(_ easy: UnsafeMutableRawPointer) {}
    }
#endif
