/// Writes ArcGIS wire values as compact JSON straight into UTF-8 bytes.
///
/// The load generator serialises every feature it sends; Foundation's `JSONEncoder` spends most of its time in
/// generic container machinery for these small dynamic values, so the hot path writes them directly. The output
/// is ordinary JSON that `JSONDecoder` reads back into equal values (tested). Non-finite doubles, which JSON
/// cannot express, are written as `null`.
package struct JSONWriter: Sendable {
    package private(set) var bytes: [UInt8] = []

    package init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    /// The written text.
    package var string: String { String(decoding: bytes, as: UTF8.self) }

    /// JSON text for an array of features.
    package static func string(features: [Feature]) -> String {
        var writer = JSONWriter(capacity: features.count * 256 + 2)
        writer.write(features: features)
        return writer.string
    }

    package mutating func write(features: [Feature]) {
        bytes.append(UInt8(ascii: "["))
        for (index, feature) in features.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            write(feature)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    package mutating func write(_ feature: Feature) {
        raw("{\"attributes\":")
        write(object: feature.attributes)
        if let geometry = feature.geometry {
            raw(",\"geometry\":")
            write(geometry)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    package mutating func write(_ value: JSONValue) {
        switch value {
        case .null: raw("null")
        case .bool(let flag): raw(flag ? "true" : "false")
        case .int(let number): raw(String(number))
        case .double(let number): write(number)
        case .string(let text): write(string: text)
        case .array(let items):
            bytes.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(item)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members): write(object: members)
        }
    }

    package mutating func write(object members: [String: JSONValue]) {
        bytes.append(UInt8(ascii: "{"))
        var first = true
        for (key, member) in members {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            write(string: key)
            bytes.append(UInt8(ascii: ":"))
            write(member)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    package mutating func write(_ geometry: Geometry) {
        switch geometry {
        case .point(let x, let y, let z, let spatialReference):
            raw("{\"x\":")
            write(x)
            raw(",\"y\":")
            write(y)
            if let z {
                raw(",\"z\":")
                write(z)
            }
            write(spatialReference)
        case .multipoint(let points, let spatialReference):
            raw("{\"points\":")
            write(coordinates: points)
            write(spatialReference)
        case .polyline(let paths, let spatialReference):
            raw("{\"paths\":")
            write(parts: paths)
            write(spatialReference)
        case .polygon(let rings, let spatialReference):
            raw("{\"rings\":")
            write(parts: rings)
            write(spatialReference)
        case .envelope(let xmin, let ymin, let xmax, let ymax, let spatialReference):
            raw("{\"xmin\":")
            write(xmin)
            raw(",\"ymin\":")
            write(ymin)
            raw(",\"xmax\":")
            write(xmax)
            raw(",\"ymax\":")
            write(ymax)
            write(spatialReference)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    private mutating func write(_ spatialReference: SpatialReference?) {
        guard let spatialReference else { return }
        raw(",\"spatialReference\":{")
        var wrote = false
        if let wkid = spatialReference.wkid {
            raw("\"wkid\":" + String(wkid))
            wrote = true
        }
        if let latest = spatialReference.latestWkid {
            raw((wrote ? "," : "") + "\"latestWkid\":" + String(latest))
        }
        bytes.append(UInt8(ascii: "}"))
    }

    private mutating func write(parts: [[[Double]]]) {
        bytes.append(UInt8(ascii: "["))
        for (index, part) in parts.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            write(coordinates: part)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    private mutating func write(coordinates: [[Double]]) {
        bytes.append(UInt8(ascii: "["))
        for (index, coordinate) in coordinates.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "["))
            for (position, number) in coordinate.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                write(number)
            }
            bytes.append(UInt8(ascii: "]"))
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Writes a double in its shortest round-trip form; whole numbers keep a `.0`.
    package mutating func write(_ number: Double) {
        guard number.isFinite else {
            raw("null")
            return
        }
        raw(number.description)
    }

    /// Writes a JSON string literal with the escapes JSON requires. Runs between escapes are copied whole.
    package mutating func write(string text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if index > runStart { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index])) }
                runStart = index + 1
                switch byte {
                case UInt8(ascii: "\""): raw("\\\"")
                case UInt8(ascii: "\\"): raw("\\\\")
                case 0x0A: raw("\\n")
                case 0x0D: raw("\\r")
                case 0x09: raw("\\t")
                default:
                    raw("\\u00")
                    bytes.append(Self.lowerHexDigits[Int(byte >> 4)])
                    bytes.append(Self.lowerHexDigits[Int(byte & 0xF)])
                }
            }
            if utf8.count > runStart { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let lowerHexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    mutating func raw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }
}
