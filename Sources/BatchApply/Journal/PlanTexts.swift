/// The texts of a page of planned edits (each edit's payload and input record), kept by the journal in one value
/// instead of in each edit's row: an edit's row then holds only the page's id and the edit's slot in it.
///
/// A row per edit with both texts in it was most of what the journal cost: SQLite writes and reads back a few hundred
/// bytes per edit twice (the plan, then the outcome rewriting the row), where one value per page is written once.
///
/// The encoding: the number of edits, then each edit's payload and source lengths, then the texts in slot order
/// (payload then source), every number a 32-bit little-endian integer.
package struct PlanTexts: Sendable {
    private let bytes: [UInt8]
    /// Where each slot's payload starts; its source follows it.
    private let starts: [Int]
    private let lengths: [(payload: Int, source: Int)]

    /// Reads an encoded page.
    /// - Throws: ``ApplyError/journal(_:)`` when `bytes` are not an encoded page (a damaged journal).
    package init(_ bytes: [UInt8]) throws {
        func number(at offset: Int) throws -> Int {
            guard offset >= 0, offset + 4 <= bytes.count else {
                throw ApplyError.journal("a page of the plan's texts is damaged (\(bytes.count) bytes)")
            }
            return Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
        }
        let count = try number(at: 0)
        guard count <= (bytes.count - 4) / 8 else {
            throw ApplyError.journal("a page of the plan's texts is damaged (\(bytes.count) bytes for \(count) edits)")
        }
        var lengths: [(payload: Int, source: Int)] = []
        var starts: [Int] = []
        lengths.reserveCapacity(count)
        starts.reserveCapacity(count)
        var start = 4 + 8 * count
        for slot in 0..<count {
            let payload = try number(at: 4 + 8 * slot)
            let source = try number(at: 8 + 8 * slot)
            lengths.append((payload, source))
            starts.append(start)
            start += payload + source
        }
        guard start == bytes.count else {
            throw ApplyError.journal("a page of the plan's texts is damaged (\(bytes.count) bytes, \(start) expected)")
        }
        self.bytes = bytes
        self.starts = starts
        self.lengths = lengths
    }

    /// The number of edits.
    package var count: Int { starts.count }

    /// The payload of the edit at `slot`.
    /// - Throws: ``ApplyError/journal(_:)`` when the page has no such slot.
    package func payload(at slot: Int) throws -> String {
        guard starts.indices.contains(slot) else { throw ApplyError.journal("a page of the plan's texts has no slot \(slot) (\(count) slots)") }
        return String(decoding: bytes[starts[slot]..<starts[slot] + lengths[slot].payload], as: UTF8.self)
    }

    /// The payload and input record of the edit at `slot`.
    /// - Throws: ``ApplyError/journal(_:)`` when the page has no such slot.
    package func texts(at slot: Int) throws -> (payload: String, source: String) {
        guard starts.indices.contains(slot) else { throw ApplyError.journal("a page of the plan's texts has no slot \(slot) (\(count) slots)") }
        let start = starts[slot]
        let (payload, source) = lengths[slot]
        return (
            String(decoding: bytes[start..<start + payload], as: UTF8.self),
            String(decoding: bytes[start + payload..<start + payload + source], as: UTF8.self)
        )
    }

    /// The most bytes of text a page holds, unless a single edit has more: far below SQLite's limit on a value
    /// (1 GB), so that a page is read in one go, however large the records.
    package static let pageBytes = 8 << 20

    /// The most bytes one edit's payload and input record may take together: a page of one edit stays under SQLite's
    /// limit on a value (1,000,000,000 bytes), with room for the page's lengths.
    static let largestEdit = 999_000_000

    /// The ranges of indices of `edits` whose texts make the pages of one append: at most ``pageBytes`` each, or a
    /// single edit; none when `edits` is empty.
    package static func pages(_ edits: [(edit: PlannedEdit, batch: Int?)], pageBytes: Int = pageBytes) -> [Range<Int>] {
        // Through a buffer pointer, as everywhere here: reading an element out of the array copied it whole.
        edits.withUnsafeBufferPointer { edits in
            var ranges: [Range<Int>] = []
            var first = 0
            var bytes = 0
            for index in edits.indices {
                let size = edits[index].edit.payload.utf8.count + edits[index].edit.source.utf8.count
                if index > first && bytes + size > pageBytes {
                    ranges.append(first..<index)
                    (first, bytes) = (index, 0)
                }
                bytes += size
            }
            if first < edits.count { ranges.append(first..<edits.count) }
            return ranges
        }
    }

    /// Encodes the texts of `edits`, in order: slot `i` is the texts of `edits[edits.startIndex + i]`.
    package static func encode(_ edits: ArraySlice<(edit: PlannedEdit, batch: Int?)>) -> [UInt8] {
        edits.withUnsafeBufferPointer { edits in
            var size = 4 + 8 * edits.count
            for index in edits.indices { size += edits[index].edit.payload.utf8.count + edits[index].edit.source.utf8.count }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(size)
            bytes.appendLittleEndian(UInt32(truncatingIfNeeded: edits.count))
            for index in edits.indices {
                bytes.appendLittleEndian(UInt32(truncatingIfNeeded: edits[index].edit.payload.utf8.count))
                bytes.appendLittleEndian(UInt32(truncatingIfNeeded: edits[index].edit.source.utf8.count))
            }
            for index in edits.indices {
                bytes.append(contentsOf: edits[index].edit.payload.utf8)
                bytes.append(contentsOf: edits[index].edit.source.utf8)
            }
            return bytes
        }
    }
}
