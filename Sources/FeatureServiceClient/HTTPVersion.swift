/// The HTTP version a response came over, such as HTTP/1.1 or HTTP/2.
public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    /// The major version: 1, 2 or 3.
    public var major: Int
    /// The minor version: 0 or 1 for HTTP/1, 0 otherwise.
    public var minor: Int

    /// A version `major.minor`.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// HTTP/1.0.
    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    /// HTTP/1.1.
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)
    /// HTTP/2.
    public static let http2 = HTTPVersion(major: 2, minor: 0)
    /// HTTP/3.
    public static let http3 = HTTPVersion(major: 3, minor: 0)

    /// `HTTP/1.1`, `HTTP/2`, `HTTP/3`.
    public var description: String { major >= 2 && minor == 0 ? "HTTP/\(major)" : "HTTP/\(major).\(minor)" }
}
