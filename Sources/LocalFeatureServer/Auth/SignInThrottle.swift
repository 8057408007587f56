import Synchronization

/// Slows password guessing at `generateToken`: after ``freeFailures`` wrong passwords in a row for one user name from
/// one address, further attempts of that user from that address are refused unchecked until a lockout passes: 1 s
/// after the last free failure, doubling with each further failure up to ``maximumLockout``. A right password resets
/// the count.
///
/// The key is the user and the address together, so one user's wrong passwords never lock out another user signing
/// in from the same address (on a load-test machine every virtual user shares 127.0.0.1), and a guesser elsewhere
/// never locks the real user out.
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

    /// Milliseconds until `key` may try again; 0 when it is not locked.
    func wait(for key: String) -> Int64 {
        let now = now()
        return records.withLock { records in
            records[key].map { max(0, $0.lockedUntil - now) } ?? 0
        }
    }

    /// Records a wrong password for `key`.
    func failed(_ key: String) {
        let now = now()
        records.withLock { records in
            if records.count >= Self.capacity { records = records.filter { $0.value.lockedUntil > now } }
            var record = records[key] ?? Record()
            record.failures += 1
            let over = record.failures - Self.freeFailures
            if over >= 0 {
                record.lockedUntil = now + min(Self.maximumLockout, 1_000 << min(over, 16))
            }
            records[key] = record
        }
    }

    /// Forgets the failures of `key` after a right password.
    func succeeded(_ key: String) {
        _ = records.withLock { $0.removeValue(forKey: key) }
    }

    /// The key of one attempt: the client's address and the user name together (case-insensitive, so that changing
    /// case does not dodge a lockout). The address, which holds no space, comes first, so no user name can forge
    /// another pair's key.
    static func key(username: String, address: String?) -> String {
        "address:" + (address ?? "unknown") + " user:" + username.lowercased()
    }
}
