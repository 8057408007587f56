import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension LocalFeatureServerConfiguration {
    /// Token security: who may sign in and how long tokens live.
    ///
    /// With ``users`` set, every resource except `/arcgis/rest/info` and the token service needs a token from
    /// `POST /arcgis/tokens/generateToken` (arcgis-rest.md §6). Without it (the default) everything is public.
    public struct Auth: Sendable {
        /// Who may sign in. `nil` (the default): token security is off.
        public var users: UserDirectory?
        /// Token lifetime when `generateToken` gets no `expiration`, in minutes. Default 60 (ArcGIS' default).
        public var defaultExpirationMinutes: Int
        /// The longest token lifetime granted, in minutes; longer requests are capped. Default 1440 (one day).
        public var maximumExpirationMinutes: Int
        /// Whether 498/499 token errors also set the HTTP status. Default false: HTTP 200 with the envelope, as ArcGIS
        /// answers most clients (arcgis-rest.md §6; esridump fails on any non-200 status).
        public var tokenErrorsUseHTTPStatus: Bool
        /// The current time in epoch milliseconds; tests inject a manual clock to expire tokens without sleeping.
        public var now: @Sendable () -> Int64

        /// Token settings; every parameter defaults to the documented property default.
        public init(
            users: UserDirectory? = nil, defaultExpirationMinutes: Int = 60, maximumExpirationMinutes: Int = 1440,
            tokenErrorsUseHTTPStatus: Bool = false, now: @escaping @Sendable () -> Int64 = Auth.wallClockMilliseconds
        ) {
            self.users = users
            self.defaultExpirationMinutes = defaultExpirationMinutes
            self.maximumExpirationMinutes = maximumExpirationMinutes
            self.tokenErrorsUseHTTPStatus = tokenErrorsUseHTTPStatus
            self.now = now
        }

        /// Whether token security is on.
        package var isEnabled: Bool { users != nil }

        /// The system clock in epoch milliseconds.
        public static let wallClockMilliseconds: @Sendable () -> Int64 = {
            Int64((Date().timeIntervalSince1970 * 1000).rounded())
        }
    }

    /// Request, attachment and upload size limits.
    package struct Limits: Sendable, Hashable {
        /// The largest request body read, in bytes; a larger one gets the ArcGIS envelope with code 413 and is not
        /// processed. Default 64 MiB (a batch of several thousand features fits easily).
        package var maximumRequestBodySize: Int
        /// The largest attachment or upload, in bytes: the file parts of one multipart request together, an uploaded
        /// item, and an attachment's data. A larger one gets the envelope with code 413. Default 256 MiB. Multipart
        /// bodies are streamed, so their file parts count against this limit, not ``maximumRequestBodySize``.
        package var maximumAttachmentSize: Int
        /// File parts up to this size stay in memory while a request is parsed; larger ones are streamed to a
        /// temporary file. Default 256 KiB.
        var inMemoryFilePartSize: Int
        /// Where temporary files of streamed uploads go; nil (the default): the system's temporary directory.
        package var temporaryDirectory: String?

        /// Limits; every parameter defaults to the documented property default.
        package init(
            maximumRequestBodySize: Int = 64 * 1024 * 1024, maximumAttachmentSize: Int = 256 * 1024 * 1024,
            inMemoryFilePartSize: Int = 256 * 1024, temporaryDirectory: String? = nil
        ) {
            self.maximumRequestBodySize = maximumRequestBodySize
            self.maximumAttachmentSize = maximumAttachmentSize
            self.inMemoryFilePartSize = inMemoryFilePartSize
            self.temporaryDirectory = temporaryDirectory
        }
    }

    /// Faults and latency injected into answers, for reliability and capacity tests.
    ///
    /// Each request draws from one seeded ``SplitMix64`` stream, so a serial run with the same settings injects the
    /// same faults into the same requests. The admin endpoint `POST /arcgis/admin/faults` replaces these settings
    /// (and restarts the stream) while the server runs; `GET /arcgis/admin/stats` counts what was injected.
    package struct Faults: Sendable, Hashable {
        /// Seed of the random stream. Default 1.
        package var seed: UInt64
        /// Latency added before matching requests are answered. Default none.
        package var latency: FaultLatency?
        /// The faults, each with its rate and scope. Request-level rates are exclusive: one draw picks at most one
        /// of them, in order, so their sum must be at most 1. ``FaultKind/editFailure`` rates apply per edit.
        package var rules: [FaultRule]
        /// Whether `/arcgis/admin/faults` and `/arcgis/admin/stats` answer. Default true (with token security on
        /// they need a token like any other resource).
        package var isAdminEnabled: Bool

        /// Fault settings; every parameter defaults to the documented property default (no faults).
        package init(seed: UInt64 = 1, latency: FaultLatency? = nil, rules: [FaultRule] = [], isAdminEnabled: Bool = true) {
            self.seed = seed
            self.latency = latency
            self.rules = rules
            self.isAdminEnabled = isAdminEnabled
        }

        /// Whether any fault or latency is set.
        var isActive: Bool { latency != nil || rules.contains { $0.rate > 0 } }
    }
}

extension LocalFeatureServerConfiguration {
    /// What protects the service from web pages in the user's browser (see `BrowserGuardMiddleware`): edits only by
    /// POST, no requests from other origins, and on loopback no `Host` but a local name.
    package struct BrowserPolicy: Sendable, Hashable {
        /// Origins (`scheme://host[:port]`) whose pages may call the service besides its own; `*` allows any.
        /// Default none.
        package var allowedOrigins: [String]
        /// Host names the `Host` header may carry besides the listening address, `localhost` and loopback addresses
        /// (checked only when the server listens on loopback). Default none.
        package var allowedHosts: [String]

        /// A policy; every parameter defaults to the documented property default.
        package init(allowedOrigins: [String] = [], allowedHosts: [String] = []) {
            self.allowedOrigins = allowedOrigins
            self.allowedHosts = allowedHosts
        }
    }
}

extension LocalFeatureServerConfiguration {
    /// How long connections may idle, how many may be open, and how long shutdown waits for requests in flight.
    public struct Connections: Sendable, Hashable {
        /// A connection that completes no request part for this long is closed: an idle keep-alive connection, and
        /// one that sends its request head or body too slowly (a byte at a time). Default 60 s, longer than the
        /// pauses of a scenario between requests so that a client rarely races the close.
        public var idleTimeout: Duration
        /// The most connections open at once; past it the server stops accepting (new connections wait in the
        /// listen backlog) and logs a warning, until one closes. nil (the default): the open-file limit less 128
        /// for the database, temporary and log files, so the server never runs out of descriptors.
        public var maximumConnections: Int?
        /// On shutdown, requests still running after this long are cancelled, so that a stalled request cannot
        /// hold the process; the database is then closed intact. Default 10 s.
        public var shutdownGracePeriod: Duration

        /// Connection settings; every parameter defaults to the documented property default.
        public init(idleTimeout: Duration = .seconds(60), maximumConnections: Int? = nil, shutdownGracePeriod: Duration = .seconds(10)) {
            self.idleTimeout = idleTimeout
            self.maximumConnections = maximumConnections
            self.shutdownGracePeriod = shutdownGracePeriod
        }

        /// ``maximumConnections``, or the default derived from the process's open-file limit (at least 16).
        var effectiveMaximumConnections: Int {
            if let maximumConnections { return max(1, maximumConnections) }
            var limit = rlimit()
            #if canImport(Glibc)
            let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
            #else
            let resource = RLIMIT_NOFILE
            #endif
            guard getrlimit(resource, &limit) == 0, limit.rlim_cur != rlim_t.max else { return 4_096 }
            return max(16, min(Int(clamping: limit.rlim_cur) - 128, 16_384))
        }
    }
}
