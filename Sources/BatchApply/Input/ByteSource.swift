import Foundation

/// Bytes of an input file read in chunks, with the 1-based line of the next byte.
///
/// Memory stays at one chunk however large the file is. Not thread-safe: one reader owns it. Reading blocks the
/// calling thread on file I/O.
struct ByteSource {
    /// Where the bytes come from: an open file, or (for tests) an array cut into chunks of `chunkSize`.
    private enum Backing {
        case file(FileCloser)
        case memory([UInt8], offset: Int)
    }

    /// Closes the file handle when the last copy of the source goes away.
    final class FileCloser {
        let handle: FileHandle
        init(_ handle: FileHandle) { self.handle = handle }
        deinit { try? handle.close() }
    }

    /// The default chunk size, 64 KiB.
    static let defaultChunkSize = 65_536

    private var backing: Backing
    private let chunkSize: Int
    private var buffer: [UInt8] = []
    private var index = 0
    private var exhausted = false
    /// The 1-based line of the next byte.
    private(set) var line = 1
    /// Bytes consumed so far.
    private(set) var offset = 0

    /// A source reading the file at `path`.
    /// - Throws: the error of `FileHandle(forReadingFrom:)` when the file cannot be opened.
    /// - Throws: ``InputSetupError`` naming the file when it cannot be opened.
    init(path: String, chunkSize: Int = ByteSource.defaultChunkSize) throws(InputSetupError) {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path)) } catch {
            throw InputSetupError("cannot open \(path): \(error.localizedDescription)")
        }
        backing = .file(FileCloser(handle))
        self.chunkSize = max(1, chunkSize)
    }

    /// A source over bytes in memory, handed out `chunkSize` at a time as a file would be.
    init(bytes: [UInt8], chunkSize: Int = ByteSource.defaultChunkSize) {
        backing = .memory(bytes, offset: 0)
        self.chunkSize = max(1, chunkSize)
    }

    /// The next byte without consuming it, or nil at the end of the file.
    /// - Throws: the file handle's read error.
    mutating func peek() throws -> UInt8? {
        if index < buffer.count { return buffer[index] }
        guard try refill() else { return nil }
        return buffer[index]
    }

    /// Consumes and returns the next byte, or nil at the end of the file.
    /// - Throws: the file handle's read error.
    mutating func next() throws -> UInt8? {
        if index >= buffer.count {
            guard try refill() else { return nil }
        }
        let byte = buffer[index]
        index += 1
        offset += 1
        if byte == 0x0A { line += 1 }
        return byte
    }

    /// Skips a UTF-8 byte-order mark at the start of the file.
    mutating func skipByteOrderMark() throws {
        guard offset == 0, try peek() == 0xEF else { return }
        // The three BOM bytes lie in one chunk unless the chunk is tiny; compare them one at a time.
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        var saved = self
        for expected in mark {
            guard try saved.next() == expected else { return }
        }
        self = saved
    }

    private mutating func refill() throws -> Bool {
        if exhausted { return false }
        switch backing {
        case .file(let closer):
            guard let data = try closer.handle.read(upToCount: chunkSize), !data.isEmpty else {
                exhausted = true
                return false
            }
            buffer = [UInt8](data)
        case .memory(let bytes, let start):
            guard start < bytes.count else {
                exhausted = true
                return false
            }
            let end = min(bytes.count, start + chunkSize)
            buffer = Array(bytes[start..<end])
            backing = .memory(bytes, offset: end)
        }
        index = 0
        return true
    }
}

/// How reading one value or line from a ``ByteSource`` ended.
enum ReadEnd: Equatable {
    /// All of it was read (and captured, when asked).
    case complete
    /// All of it was read, but it is `byteCount` bytes, more than the limit: nothing of it is kept, so memory stays
    /// at the limit however long it is.
    case tooLarge(byteCount: Int)
    /// The file ended before the value did.
    case endOfFile
}

extension ByteSource {
    /// Consumes one JSON object, array or string that starts at the next byte, tracking only quotes, escapes and
    /// bracket depth, and appends its bytes to `bytes` when `capture` is true, as long as they are at most `limit`;
    /// past that, `bytes` is emptied and the rest only scanned. Scans a chunk at a time (the hot loop of the JSON
    /// readers).
    /// - Returns: how the value ended: complete, too large, or cut short by the end of the file.
    /// - Throws: the file handle's read error.
    mutating func readJSONComposite(into bytes: inout [UInt8], capture: Bool, limit: Int = .max) throws -> ReadEnd {
        var capture = capture
        var size = 0
        var depth = 0
        var inString = false
        var escaped = false
        while true {
            if index >= buffer.count {
                guard try refill() else { return .endOfFile }
            }
            let chunk = buffer
            let start = index
            var position = index
            var lines = 0
            var complete = false
            chunk.withUnsafeBufferPointer { pointer in
                while position < pointer.count {
                    let byte = pointer[position]
                    position += 1
                    if byte == 0x0A { lines += 1 }
                    if inString {
                        if escaped {
                            escaped = false
                        } else if byte == 0x5C {  // backslash
                            escaped = true
                        } else if byte == 0x22 {  // quote
                            inString = false
                            if depth == 0 {
                                complete = true
                                return
                            }
                        }
                        continue
                    }
                    switch byte {
                    case 0x22: inString = true
                    case 0x7B, 0x5B: depth += 1  // { [
                    case 0x7D, 0x5D:  // } ]
                        depth -= 1
                        if depth == 0 {
                            complete = true
                            return
                        }
                    default: break
                    }
                }
            }
            index = position
            offset += position - start
            line += lines
            size += position - start
            if capture && size > limit {
                capture = false
                bytes = []
            }
            if capture { bytes.append(contentsOf: chunk[start..<position]) }
            if complete { return size > limit ? .tooLarge(byteCount: size) : .complete }
        }
    }

    /// Consumes the bytes up to and including the next line feed (or the end of the file), appending those before
    /// it to `bytes` as long as they are at most `limit`; a longer line is consumed to its end, with nothing kept.
    /// - Returns: nil when the file had no bytes left; ``ReadEnd/tooLarge(byteCount:)`` for a line over `limit`,
    ///   else ``ReadEnd/complete`` (also for a last line without a line feed).
    /// - Throws: the file handle's read error.
    mutating func readLine(into bytes: inout [UInt8], limit: Int = .max) throws -> ReadEnd? {
        var readAny = false
        var size = 0
        while true {
            if index >= buffer.count {
                guard try refill() else { return readAny ? (size > limit ? .tooLarge(byteCount: size) : .complete) : nil }
            }
            readAny = true
            let start = index
            // memchr: a generic search for the newline went byte by byte.
            let end = buffer.withUnsafeBufferPointer { buffer -> Int? in
                guard let base = buffer.baseAddress, let found = memchr(base + start, 0x0A, buffer.count - start) else { return nil }
                return UnsafePointer(found.assumingMemoryBound(to: UInt8.self)) - base
            }
            let stop = end ?? buffer.count
            size += stop - start
            if size <= limit {
                bytes.append(contentsOf: buffer[start..<stop])
            } else if !bytes.isEmpty {
                bytes = []
            }
            index = end.map { $0 + 1 } ?? stop
            offset += index - start
            if end != nil {
                line += 1
                return size > limit ? .tooLarge(byteCount: size) : .complete
            }
        }
    }
}
