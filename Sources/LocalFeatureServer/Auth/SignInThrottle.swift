import Synchronization

/// Slows password guessing at `generateToken`: after ``freeFailures`` wrong passwords in a row for one user name or
/// from one address, further attempts for it are refused unchecked until a lockout passes: 1 s after the last free
/// failure, doubling with each further failure up to ``maximumLockout``. A right password resets the user's count (the address's too).
///
/// Before it, a loop could try 1,800 passwords a second. Time comes from ``LocalFeatureServerConfiguration/Auth/now``
/// (epoch milliseconds) so tests lock and unlock without sleeping. Memory is bounded: past ``capacity`` keys, those
/// not locked are forgotten.
final class SignInThrottle: Sendable {
    /// Wrong passwords tried at full speed; the last of them starts the first lockout.
    static let freeFailures = 5
    /// The longest lockout, in milliseconds.
    static let maximumLockout: Int64 = 60_000
    /// The most keys remembered.
    static let capacity = 10_000

    private struct Record {
        var failures = 0
        /// Epoch milliseconds until which attempts are refused.
        var lockedUntil: Int64 = 0
    }

    private let records = Mutex<[String: Record]>([:])
    private let now: @Sendable () -> Int64

    init(now: @escaping @Sendable () -> Int64) {
        self.now = now
    }

    /// Milliseconds until `keys` may try again; 0 when none of them is locked.
    func wait(for keys: [String]) -> Int64 {
        let now = now()
        return records.withLock { records in
            keys.compactMap { records[$0].map { max(0, $0.lockedUntil - now) } }.max() ?? 0
        }
    }

    /// Records a wrong password for each of `keys`.
    func failed(_ keys: [String]) {
        let now = now()
        records.withLock { records in
            if records.count >= Self.capacity { records = records.filter { $0.value.lockedUntil > now } }
            for key in keys {
                var record = records[key] ?? Record()
                record.failures += 1
                let over = record.failures - Self.freeFailures
                if over >= 0 {
                    record.lockedUntil = now + min(Self.maximumLockout, 1_000 << min(over, 16))
                }
                records[key] = record
            }
        }
    }

    /// Forgets the failures of `keys` after a right password.
    func succeeded(_ keys: [String]) {
        records.withLock { records in
            for key in keys { records[key] = nil }
        }
    }

    /// The keys of one attempt: the user name (case-insensitive, as sign-in is) and the client's address.
    static func keys(username: String, address: String?) -> [String] {
        ["user:" + username.lowercased()] + (address.map { ["address:" + $0] } ?? [])
    }
}
