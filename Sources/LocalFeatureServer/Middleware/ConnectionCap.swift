import Hummingbird
import HummingbirdCore
import Logging

/// Stops accepting connections while ``limit`` are open (new ones wait in the listen backlog), and says so in the
/// log once each time the limit is reached, so that a saturated server is visible instead of silently slow.
///
/// Without a cap, 240 idle sockets under `ulimit -n 256` left no descriptor for SQLite or new sockets and the
/// accept loop spun at 100% CPU with nothing logged. Called on the listener's event loop only.
struct ConnectionCap: AvailableConnectionsDelegate {
    let limit: Int
    let logger: Logger
    private(set) var open = 0
    private var saturated = false

    init(limit: Int, logger: Logger) {
        self.limit = limit
        self.logger = logger
    }

    mutating func connectionOpened() {
        open += 1
        if open >= limit && !saturated {
            saturated = true
            logger.warning(
                "connection limit reached: new connections wait until one closes",
                metadata: ["open": "\(open)", "limit": "\(limit)", "setting": "featureload serve --max-connections"])
        }
    }

    mutating func connectionClosed() {
        open -= 1
        if saturated && open < limit {
            saturated = false
            logger.notice("accepting connections again", metadata: ["open": "\(open)", "limit": "\(limit)"])
        }
    }

    func isAcceptingNewConnections() -> Bool {
        open < limit
    }
}
