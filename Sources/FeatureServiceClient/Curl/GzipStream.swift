internal import CZlib

/// A gzip stream (RFC 1952) compressed as it is written, for files a run writes as it goes
/// (`run --out csv=samples.csv.gz`). One owner writes to it; it is not shared between tasks.
package final class GzipStream {
    /// What zlib answered when it could not compress.
    package struct Failure: Error, CustomStringConvertible {
        package var status: Int32
        package var description: String { "gzip compression failed (zlib status \(status))" }
    }

    private let stream: UnsafeMutablePointer<z_stream>
    private let output = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 64 * 1024)
    private var finished = false

    /// A stream at zlib's `level` (1, the fastest, by default: a load generator's CPU matters more than the last
    /// tenth of the file's size); nil when zlib cannot allocate one.
    package init?(level: Int32 = 1) {
        guard let stream = czlib_gzip_stream_open(level) else {
            output.deallocate()
            return nil
        }
        self.stream = stream
    }

    deinit {
        czlib_gzip_stream_close(stream)
        output.deallocate()
    }

    /// Compresses `bytes`, calling `emit` with each piece of compressed output as it is made (none, usually: zlib
    /// holds small inputs back until it has a block).
    package func write(_ bytes: [UInt8], emit: ([UInt8]) throws -> Void) throws {
        precondition(!finished, "write after finish")
        try deflate(bytes, finish: false, emit: emit)
    }

    /// Ends the stream: the rest of the compressed data and the gzip trailer go to `emit`.
    package func finish(emit: ([UInt8]) throws -> Void) throws {
        guard !finished else { return }
        finished = true
        try deflate([], finish: true, emit: emit)
    }

    private func deflate(_ bytes: [UInt8], finish: Bool, emit: ([UInt8]) throws -> Void) throws {
        try bytes.withUnsafeBufferPointer { input in
            var offset = 0
            while true {
                var consumed = 0
                var written = 0
                let rest = min(input.count - offset, 1 << 30)
                let status = czlib_gzip_stream_deflate(
                    stream, input.baseAddress.map { $0 + offset }, rest, output.baseAddress, output.count, finish ? 1 : 0, &consumed, &written)
                guard status == Z_OK || status == Z_BUF_ERROR || status == Z_STREAM_END else { throw Failure(status: status) }
                offset += consumed
                if written > 0 { try emit(Array(output[0..<written])) }
                if finish {
                    if status == Z_STREAM_END { return }
                } else if offset == input.count && written < output.count {
                    return
                }
            }
        }
    }
}
