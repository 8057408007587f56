/// Why an HTTP request got no response: the failure of the transport itself (``CurlTransport``).
///
/// It carries the URL without its query string (tokens travel there) and never a body. `description` says what
/// went wrong and what to check. The retry logic reads ``isConnectionFailure``, ``isTimeout`` and
/// ``mayHaveBeenSent``: a request that may have reached the server is not safe to repeat unless it is idempotent.
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure. An open set: match with `==` against the static members.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Code: Sendable, Hashable {
            case couldNotResolveHost, couldNotConnect, timedOut, sendFailed, receiveFailed, emptyReply
            case invalidRequest, shutdown, tlsFailed, responseTooLarge, writeFailed, other
        }
        private let code: Code
        private init(_ code: Code) { self.code = code }

        /// The host name did not resolve (curl 6); nothing was sent.
        public static let couldNotResolveHost = Kind(.couldNotResolveHost)
        /// No TCP connection could be made (curl 7); nothing was sent.
        public static let couldNotConnect = Kind(.couldNotConnect)
        /// The connect or total timeout expired (curl 28).
        public static let timedOut = Kind(.timedOut)
        /// Sending the request failed midway (curl 55).
        public static let sendFailed = Kind(.sendFailed)
        /// Receiving the response failed midway (curl 56).
        public static let receiveFailed = Kind(.receiveFailed)
        /// The server closed the connection without answering (curl 52).
        public static let emptyReply = Kind(.emptyReply)
        /// The request could not be built: a malformed URL or a header with a line break (curl 3); nothing was sent.
        public static let invalidRequest = Kind(.invalidRequest)
        /// The transport was shut down before the request finished.
        public static let shutdown = Kind(.shutdown)
        /// The TLS handshake failed or the server's certificate was not trusted (curl 35, 60, 77); nothing was sent.
        public static let tlsFailed = Kind(.tlsFailed)
        /// The response body passed ``CurlTransportConfiguration/maximumResponseSize``; the transfer was stopped.
        public static let responseTooLarge = Kind(.responseTooLarge)
        /// The response body could not be written to the file it was downloaded to.
        public static let writeFailed = Kind(.writeFailed)
        /// Any other libcurl failure; see ``TransportError/curlCode``.
        public static let other = Kind(.other)

        /// The kind in a few words, such as `timed out`.
        public var description: String {
            switch code {
            case .couldNotResolveHost: "could not resolve host"
            case .couldNotConnect: "could not connect"
            case .timedOut: "timed out"
            case .sendFailed: "sending failed"
            case .receiveFailed: "receiving failed"
            case .emptyReply: "empty reply"
            case .invalidRequest: "invalid request"
            case .shutdown: "transport shut down"
            case .tlsFailed: "TLS failed"
            case .responseTooLarge: "response too large"
            case .writeFailed: "writing the response failed"
            case .other: "transfer failed"
            }
        }
    }

    /// What went wrong.
    public let kind: Kind
    /// The request URL without query string, fragment or user info.
    public let url: String
    /// The libcurl `CURLcode`, when libcurl reported the failure.
    package let curlCode: Int?
    /// libcurl's own explanation (such as "Failed to connect to 127.0.0.1 port 9: Connection refused"), if any.
    public let message: String?
    /// Whether request bytes may have reached the server; `false` means the request certainly had no effect.
    public let mayHaveBeenSent: Bool

    /// A transport error; real transports and fakes build them alike.
    /// - Parameters:
    ///   - kind: What went wrong.
    ///   - url: The request URL; its query string and user info are dropped here.
    ///   - curlCode: The libcurl code, if any.
    ///   - message: A short explanation without bodies or tokens.
    ///   - mayHaveBeenSent: Whether request bytes may have reached the server; by default derived from `kind`
    ///     (`false` for resolve, connect and invalid-request failures, `true` otherwise).
    package init(_ kind: Kind, url: String, curlCode: Int? = nil, message: String? = nil, mayHaveBeenSent: Bool? = nil) {
        self.kind = kind
        self.url = HTTPRequest.redact(url)
        self.curlCode = curlCode
        self.message = message
        self.mayHaveBeenSent = mayHaveBeenSent ?? !TransportError.certainlyUnsent.contains(kind)
    }

    private static let certainlyUnsent: Set<Kind> = [.couldNotResolveHost, .couldNotConnect, .invalidRequest, .tlsFailed]

    /// Whether no connection to the server could be made (host not resolved or connection refused or unreachable).
    public var isConnectionFailure: Bool { kind == .couldNotConnect || kind == .couldNotResolveHost }

    /// Whether a connect or total timeout expired.
    public var isTimeout: Bool { kind == .timedOut }

    /// The kind, the redacted URL, libcurl's code and message, and what to check; never a token or a body.
    public var description: String {
        var text = "\(kind): \(url)"
        if let curlCode {
            text += " (curl \(curlCode)" + (message.map { ": \($0)" } ?? "") + ")"
        } else if let message {
            text += " (\(message))"
        }
        return text + ". " + advice
    }

    private var advice: String {
        switch kind {
        case .couldNotResolveHost: "Check the host name in the service URL and the machine's DNS settings."
        case .couldNotConnect: "Check that the service is running and that the URL's host and port are right."
        case .timedOut:
            mayHaveBeenSent
                ? "The server took too long to answer; raise the request timeout or lower the load."
                : "No connection within the connect timeout; check that the host is reachable."
        case .sendFailed, .receiveFailed, .emptyReply:
            "The connection broke mid-request; the server may have crashed, restarted or dropped idle connections."
        case .invalidRequest: "Check the URL and header values."
        case .responseTooLarge:
            "The answer was larger than the response size limit; raise the limit (`--max-response-size` of featureload run, "
                + "apply or verify) if an answer this large is expected."
        case .writeFailed: "Check that the destination directory exists, is writable and has space."
        case .shutdown: "The transport was shut down while the request was outstanding."
        case .tlsFailed:
            "The server's certificate was not trusted or the TLS handshake failed; trust its certificate authority (`--ca-file`, "
                + "or `tls.caFile` in a scenario file), or, for test servers only, skip the check (`--insecure`)."
        default: "See libcurl's error code list for details."
        }
    }
}
