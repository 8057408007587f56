/// The HTTP version a response came over, such as HTTP/1.1 or HTTP/2.
package struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    /// The major version: 1, 2 or 3.
    var major: Int
    /// The minor version: 0 or 1 for HTTP/1, 0 otherwise.
    var minor: Int

    /// A version `major.minor`.
    package init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// HTTP/1.0.
    static let http1_0 = HTTPVersion(major: 1, minor: 0)
    /// HTTP/1.1.
    package static let http1_1 = HTTPVersion(major: 1, minor: 1)
    /// HTTP/2.
    package static let http2 = HTTPVersion(major: 2, minor: 0)
    /// HTTP/3.
    static let http3 = HTTPVersion(major: 3, minor: 0)

    /// `HTTP/1.1`, `HTTP/2`, `HTTP/3`.
    package var description: String { major >= 2 && minor == 0 ? "HTTP/\(major)" : "HTTP/\(major).\(minor)" }
}
