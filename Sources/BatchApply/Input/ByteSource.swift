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

extension ByteSource {
    /// Consumes one JSON object, array or string that starts at the next byte, tracking only quotes, escapes and
    /// bracket depth, and appends its bytes to `bytes` when `capture` is true. Scans a chunk at a time (the hot
    /// loop of the JSON readers).
    /// - Returns: false when the file ends before the value does.
    /// - Throws: the file handle's read error.
    mutating func readJSONComposite(into bytes: inout [UInt8], capture: Bool) throws -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        while true {
            if index >= buffer.count {
                guard try refill() else { return false }
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
            if capture { bytes.append(contentsOf: chunk[start..<position]) }
            if complete { return true }
        }
    }

    /// Consumes the bytes up to and including the next line feed (or the end of the file), appending those before
    /// it to `bytes`.
    /// - Returns: false when the file had no bytes left.
    /// - Throws: the file handle's read error.
    mutating func readLine(into bytes: inout [UInt8]) throws -> Bool {
        var readAny = false
        while true {
            if index >= buffer.count {
                guard try refill() else { return readAny }
            }
            readAny = true
            let start = index
            let end = buffer[start...].firstIndex(of: 0x0A)
            let stop = end ?? buffer.count
            bytes.append(contentsOf: buffer[start..<stop])
            index = end.map { $0 + 1 } ?? stop
            offset += index - start
            if end != nil {
                line += 1
                return true
            }
        }
    }
}
