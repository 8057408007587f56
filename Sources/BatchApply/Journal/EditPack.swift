/// The plan of plain edits of one batch written by one append, with their texts in one page (``PlanTexts``), kept by
/// the journal in one row (a *pack*) instead of a row per edit.
///
/// A row per edit, written with the plan and rewritten with its outcome, was what the journal still cost at large
/// batches: about a quarter of a second of CPU for 100,000 adds, on the two cores the service needs. A pack is written
/// once; a batch whose edits are all applied records its outcome in its own row (``AppliedIDs``). Any other outcome
/// (an edit rejected, failed or in doubt) unpacks the batch into a row per edit, as the journal kept every edit before.
///
/// The encoding, every number little-endian: the number of edits (32 bits), then each edit's input position (64), line
/// (64, -1 for none), kind (8: 0 add, 1 update, 2 delete), layer (64), object ID (8: 0 none, 1 one, then 64), GlobalID
/// and table (each a 32-bit length, 0xFFFFFFFF for none, then UTF-8). It holds what plans the edit, so a plan made
/// again over an interrupted one gives the same bytes; the slots of the texts, which depend on the page, are apart.
package struct EditPack: Sendable, Hashable {
    /// What plans one packed edit, its texts apart.
    package struct Entry: Sendable, Hashable {
        package var position: InputPosition
        package var kind: InputEdit.Kind
        package var layer: Int
        package var globalId: String?
        package var objectId: Int64?
    }

    package var entries: [Entry]

    /// Reads an encoded pack.
    /// - Throws: ``ApplyError/journal(_:)`` when `bytes` are not an encoded pack (a damaged journal).
    package init(_ bytes: [UInt8]) throws {
        var reader = Reader(bytes: bytes)
        let count = Int(try reader.number(4))
        guard count <= bytes.count / 30 else { throw Reader.damaged(bytes.count) }
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let index = Int(Int64(bitPattern: try reader.number(8)))
            let line = Int64(bitPattern: try reader.number(8))
            let kind: InputEdit.Kind
            switch try reader.number(1) {
            case 0: kind = .add
            case 1: kind = .update
            case 2: kind = .delete
            default: throw Reader.damaged(bytes.count)
            }
            let layer = Int(Int64(bitPattern: try reader.number(8)))
            let objectId = try reader.number(1) == 0 ? nil : Int64(bitPattern: try reader.number(8))
            let globalId = try reader.text()
            let table = try reader.text()
            entries.append(
                Entry(
                    position: InputPosition(index: index, line: line < 0 ? nil : Int(line), table: table), kind: kind, layer: layer,
                    globalId: globalId, objectId: objectId))
        }
        guard reader.offset == bytes.count else { throw Reader.damaged(bytes.count) }
        self.entries = entries
    }

    /// Encodes the plans of `edits` (their texts apart), in order.
    static func encode(_ edits: UnsafeBufferPointer<(edit: PlannedEdit, batch: Int?)>, _ indices: [Int]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4 + indices.count * 80)
        func put(_ text: String?) {
            guard let text else { return bytes.appendLittleEndian(UInt32.max) }
            bytes.appendLittleEndian(UInt32(text.utf8.count))
            bytes.append(contentsOf: text.utf8)
        }
        bytes.appendLittleEndian(UInt32(indices.count))
        for index in indices {
            // Read in place, not copied out of the buffer (every string of the edit retained and released).
            bytes.appendLittleEndian(Int64(edits[index].edit.position.index))
            bytes.appendLittleEndian(Int64(edits[index].edit.position.line ?? -1))
            bytes.appendLittleEndian(UInt8(edits[index].edit.kind == .add ? 0 : edits[index].edit.kind == .update ? 1 : 2))
            bytes.appendLittleEndian(Int64(edits[index].edit.layer))
            if let objectId = edits[index].edit.objectId {
                bytes.appendLittleEndian(UInt8(1))
                bytes.appendLittleEndian(objectId)
            } else {
                bytes.appendLittleEndian(UInt8(0))
            }
            put(edits[index].edit.globalId)
            put(edits[index].edit.position.table)
        }
        return bytes
    }

    /// The input positions of an encoded pack's edits, in order, read without making its texts.
    /// - Throws: ``ApplyError/journal(_:)`` when `bytes` are not an encoded pack (a damaged journal).
    package static func positions(_ bytes: [UInt8]) throws -> [Int] {
        var reader = Reader(bytes: bytes)
        let count = Int(try reader.number(4))
        guard count <= bytes.count / 30 else { throw Reader.damaged(bytes.count) }
        var positions: [Int] = []
        positions.reserveCapacity(count)
        for _ in 0..<count {
            positions.append(Int(Int64(bitPattern: try reader.number(8))))
            try reader.skip(8 + 1 + 8)  // line, kind, layer
            if try reader.number(1) != 0 { try reader.skip(8) }  // object ID
            try reader.skipText()  // GlobalID
            try reader.skipText()  // table
        }
        guard reader.offset == bytes.count else { throw Reader.damaged(bytes.count) }
        return positions
    }

    /// Encodes slots of a page, each a 32-bit number.
    static func encode(slots: [Int]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4 * slots.count)
        for slot in slots { bytes.appendLittleEndian(UInt32(truncatingIfNeeded: slot)) }
        return bytes
    }

    /// Reads slots encoded by ``encode(slots:)``.
    /// - Throws: ``ApplyError/journal(_:)`` when there are not `count` of them.
    package static func slots(_ bytes: [UInt8], count: Int) throws -> [Int] {
        guard bytes.count == 4 * count else {
            throw ApplyError.journal("a pack of the plan's edits is damaged (\(bytes.count) bytes of slots for \(count) edits)")
        }
        var reader = Reader(bytes: bytes)
        return try (0..<count).map { _ in Int(try reader.number(4)) }
    }

    /// Reads numbers and texts of an encoded pack in turn.
    struct Reader {
        let bytes: [UInt8]
        var offset = 0

        static func damaged(_ count: Int) -> ApplyError { ApplyError.journal("a pack of the plan's edits is damaged (\(count) bytes)") }

        mutating func number(_ width: Int) throws -> UInt64 {
            guard offset + width <= bytes.count else { throw Self.damaged(bytes.count) }
            var value: UInt64 = 0
            for byte in 0..<width { value |= UInt64(bytes[offset + byte]) << UInt64(8 * byte) }
            offset += width
            return value
        }

        mutating func skip(_ count: Int) throws {
            guard offset + count <= bytes.count else { throw Self.damaged(bytes.count) }
            offset += count
        }

        mutating func skipText() throws {
            let length = try number(4)
            if length != UInt64(UInt32.max) { try skip(Int(length)) }
        }

        mutating func text() throws -> String? {
            let length = try number(4)
            if length == UInt64(UInt32.max) { return nil }
            guard offset + Int(length) <= bytes.count else { throw Self.damaged(bytes.count) }
            defer { offset += Int(length) }
            return String(decoding: bytes[offset..<offset + Int(length)], as: UTF8.self)
        }
    }
}

/// The outcome of a packed batch every edit of which is applied: each edit's input position and object ID, in the
/// batch's row, in place of a row per edit. Encoded as pairs of 64-bit little-endian numbers.
package enum AppliedIDs {
    /// Encodes `records` (each applied, with its object ID).
    static func encode(_ records: [EditRecord]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16 * records.count)
        for record in records {
            bytes.appendLittleEndian(Int64(record.index))
            bytes.appendLittleEndian(record.objectId ?? 0)
        }
        return bytes
    }

    /// The object ID of each position.
    /// - Throws: ``ApplyError/journal(_:)`` when `bytes` are not pairs (a damaged journal).
    package static func decode(_ bytes: [UInt8]) throws -> [Int: Int64] {
        guard bytes.count % 16 == 0 else { throw ApplyError.journal("the outcome of a batch is damaged (\(bytes.count) bytes)") }
        var reader = EditPack.Reader(bytes: bytes)
        var ids: [Int: Int64] = [:]
        ids.reserveCapacity(bytes.count / 16)
        for _ in 0..<bytes.count / 16 {
            let position = Int(Int64(bitPattern: try reader.number(8)))
            ids[position] = Int64(bitPattern: try reader.number(8))
        }
        return ids
    }
}

extension [UInt8] {
    /// Appends `value`'s bytes, least significant first: the byte order of the journal's encoded values (``PlanTexts``,
    /// ``EditPack``, ``AppliedIDs``).
    mutating func appendLittleEndian<Value: FixedWidthInteger>(_ value: Value) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}
