/// Reads OGC well-known text: POINT, MULTIPOINT, LINESTRING, MULTILINESTRING, POLYGON and MULTIPOLYGON, with
/// Z, M and ZM variants (M dropped), EMPTY, and an EWKT `SRID=…;` prefix.
///
/// Pure: no I/O.
package enum WKTParser {
    /// The geometry `text` spells, and the SRID of an EWKT prefix when there is one.
    /// - Throws: ``GeometryProblem`` naming the character position where the text stops making sense.
    package static func parse(_ text: String) throws(GeometryProblem) -> (geometry: SimpleGeometry, srid: Int?) {
        var scanner = Scanner(Array(text.utf8))
        var srid: Int?
        if scanner.skip(word: "SRID") {
            guard scanner.skip(UInt8(ascii: "=")), let number = scanner.number(), let code = Int(exactly: number), scanner.skip(UInt8(ascii: ";"))
            else { throw scanner.problem("expected SRID=<code>;") }
            srid = code
        }
        let geometry = try scanner.geometry()
        scanner.skipSpaces()
        guard scanner.atEnd else { throw scanner.problem("unexpected text after the geometry") }
        return (geometry, srid)
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        /// Coordinates per position in the text (2, 3 or 4) and whether the third is a measure.
        var dimensions = 2
        var thirdIsMeasure = false

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index >= bytes.count }

        func problem(_ reason: String) -> GeometryProblem { GeometryProblem("WKT: \(reason) at character \(index + 1)") }

        mutating func skipSpaces() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D { index += 1 }
        }

        mutating func skip(_ byte: UInt8) -> Bool {
            skipSpaces()
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func word() -> String {
            skipSpaces()
            let start = index
            while index < bytes.count, (bytes[index] | 0x20) >= UInt8(ascii: "a"), (bytes[index] | 0x20) <= UInt8(ascii: "z") { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self).uppercased()
        }

        mutating func skip(word expected: String) -> Bool {
            let saved = index
            if word() == expected { return true }
            index = saved
            return false
        }

        mutating func number() -> Double? {
            skipSpaces()
            let start = index
            while index < bytes.count,
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index])
                    || [UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index])
            {
                index += 1
            }
            guard index > start, let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)) else {
                index = start
                return nil
            }
            return value
        }

        mutating func geometry() throws(GeometryProblem) -> SimpleGeometry {
            let type = word()
            var modifier = word()
            // "POINTZ" style is not OGC; only a separate Z / M / ZM word is read.
            switch modifier {
            case "Z": dimensions = 3
            case "M":
                dimensions = 3
                thirdIsMeasure = true
            case "ZM": dimensions = 4
            case "EMPTY", "": break
            default: throw problem("unexpected '\(modifier)' after \(type)")
            }
            if modifier != "EMPTY" && modifier != "" { modifier = word() }
            if modifier == "EMPTY" { return .empty }
            if !modifier.isEmpty { throw problem("unexpected '\(modifier)'") }
            switch type {
            case "POINT": return .point(try wrapped { (s: inout Scanner) throws(GeometryProblem) in try s.position() })
            case "MULTIPOINT":
                return .multiPoint(
                    try list { (s: inout Scanner) throws(GeometryProblem) in
                        // Both MULTIPOINT ((1 2), (3 4)) and MULTIPOINT (1 2, 3 4).
                        if s.skip(UInt8(ascii: "(")) {
                            let position = try s.position()
                            guard s.skip(UInt8(ascii: ")")) else { throw s.problem("expected ')'") }
                            return position
                        }
                        return try s.position()
                    })
            case "LINESTRING": return .lineString(try positions())
            case "MULTILINESTRING": return .multiLineString(try list { (s: inout Scanner) throws(GeometryProblem) in try s.positions() })
            case "POLYGON": return .polygon(try list { (s: inout Scanner) throws(GeometryProblem) in try s.positions() })
            case "MULTIPOLYGON":
                return .multiPolygon(
                    try list { (s: inout Scanner) throws(GeometryProblem) in
                        try s.list { (t: inout Scanner) throws(GeometryProblem) in try t.positions() }
                    })
            case "": throw problem("expected a geometry type")
            default: throw problem("unsupported geometry type \(type)")
            }
        }

        mutating func position() throws(GeometryProblem) -> [Double] {
            var coordinates: [Double] = []
            while let value = number() { coordinates.append(value) }
            guard coordinates.count >= 2 else { throw problem("expected a position of at least 2 numbers") }
            if thirdIsMeasure || coordinates.count > 3 { return Array(coordinates.prefix(thirdIsMeasure ? 2 : 3)) }
            return coordinates
        }

        mutating func positions() throws(GeometryProblem) -> [[Double]] {
            try list { (s: inout Scanner) throws(GeometryProblem) in try s.position() }
        }

        mutating func wrapped<T>(_ body: (inout Scanner) throws(GeometryProblem) -> T) throws(GeometryProblem) -> T {
            guard skip(UInt8(ascii: "(")) else { throw problem("expected '('") }
            let value = try body(&self)
            guard skip(UInt8(ascii: ")")) else { throw problem("expected ')'") }
            return value
        }

        /// `( item, item, … )`, or EMPTY for an empty list.
        mutating func list<T>(_ item: (inout Scanner) throws(GeometryProblem) -> T) throws(GeometryProblem) -> [T] {
            if skip(word: "EMPTY") { return [] }
            guard skip(UInt8(ascii: "(")) else { throw problem("expected '('") }
            var items: [T] = [try item(&self)]
            while skip(UInt8(ascii: ",")) { items.append(try item(&self)) }
            guard skip(UInt8(ascii: ")")) else { throw problem("expected ',' or ')'") }
            return items
        }
    }
}
