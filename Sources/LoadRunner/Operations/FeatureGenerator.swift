package import FeatureModel

/// Builds features that a layer accepts, from its schema: types, lengths, nullability and domains.
///
/// Pure and deterministic: the same seed and index give the same feature, whichever worker builds it.
package struct FeatureGenerator: Sendable {
    package let layer: LayerInfo
    package let seed: UInt64
    private let writableFields: [Field]
    /// How ``encode(from:count:)`` and ``formEncoded(from:count:)`` write each of ``writableFields``.
    let fieldPlans: [FieldPlan]
    /// Their fixed parts as JSON text, and percent-encoded.
    let jsonSyntax: Syntax
    let formSyntax: Syntax

    package init(layer: LayerInfo, seed: UInt64) {
        self.layer = layer
        self.seed = seed
        let skipped: Set<String> = [layer.objectIdField.lowercased(), layer.globalIdField?.lowercased() ?? ""]
        writableFields = layer.fields.filter { field in
            field.isEditable && !skipped.contains(field.name.lowercased()) && field.type != .oid
                && field.type != .globalID && field.type != .geometry
        }
        fieldPlans = writableFields.map(Self.plan(for:))
        jsonSyntax = Syntax(fieldPlans, point: layer.geometryType == .point, encoded: false)
        formSyntax = Syntax(fieldPlans, point: layer.geometryType == .point, encoded: true)
    }

    /// The random stream of the feature at `index`.
    func randomStream(for index: Int) -> SplitMix64 {
        SplitMix64(seed: seed &+ UInt64(truncatingIfNeeded: index) &* 0x2545_F491_4F6C_DD1D)
    }

    /// The feature for position `index` of a run.
    package func feature(at index: Int) -> Feature {
        var random = randomStream(for: index)
        var attributes: [String: JSONValue] = [:]
        attributes.reserveCapacity(writableFields.count)
        for field in writableFields {
            attributes[field.name] = value(for: field, index: index, random: &random)
        }
        return Feature(attributes: attributes, geometry: geometry(random: &random))
    }

    /// `count` consecutive features starting at `start`.
    package func features(from start: Int, count: Int) -> [Feature] {
        (start..<(start + count)).map(feature(at:))
    }

    func value(for field: Field, index: Int, random: inout SplitMix64) -> JSONValue {
        if let domain = field.domain {
            switch domain {
            case .codedValue(_, let values) where !values.isEmpty:
                return values[Int(random.next() % UInt64(values.count))].code
            case .range(_, let low, let high):
                if field.type.isInteger {
                    let lowInt = Int64(low.rounded(.up))
                    let highInt = Int64(high.rounded(.down))
                    guard highInt >= lowInt else { return .int(lowInt) }
                    return .int(Int64.random(in: lowInt...highInt, using: &random))
                }
                return .double(((Double.random(in: low...high, using: &random)) * 100).rounded() / 100)
            default:
                break
            }
        }
        switch field.type {
        case .smallInteger: return .int(Int64.random(in: 0...100, using: &random))
        case .integer, .bigInteger: return .int(Int64.random(in: 0...1_000_000, using: &random))
        case .single, .double: return .double((Double.random(in: 0...10_000, using: &random) * 100).rounded() / 100)
        case .date:
            // 1900-01-01 … 2025-01-01 in epoch milliseconds.
            return .int(Int64.random(in: -2_208_988_800_000...1_735_689_600_000, using: &random))
        case .guid:
            return field.isNullable ? .null : .string(GlobalID.make(using: &random))
        case .string:
            return .string(text(for: field, index: index, random: &random))
        default:
            return field.isNullable ? .null : .string("")
        }
    }

    private func text(for field: Field, index: Int, random: inout SplitMix64) -> String {
        let limit = field.length ?? 64
        if limit < 8 {
            let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
            return String((0..<max(1, limit)).map { _ in letters[Int(random.next() % 26)] })
        }
        let text = "\(field.name) \(index) \(String(random.next() % 1_000_000, radix: 36))"
        return String(text.prefix(limit))
    }

    private func geometry(random: inout SplitMix64) -> Geometry? {
        pointGeometry(random: &random).map { .point(x: $0.x / 1e6, y: $0.y / 1e6) }
    }

    /// A point in the layer's extent, in whole millionths of a unit (so it is exact in decimal); nil unless the
    /// layer holds points.
    func pointGeometry(random: inout SplitMix64) -> (x: Double, y: Double)? {
        guard layer.geometryType == .point else { return nil }
        let extent = layer.extent ?? Extent(xmin: -125, ymin: 25, xmax: -66, ymax: 49)
        let x = Double.random(in: extent.xmin...max(extent.xmin, extent.xmax), using: &random)
        let y = Double.random(in: extent.ymin...max(extent.ymin, extent.ymax), using: &random)
        return ((x * 1e6).rounded(), (y * 1e6).rounded())
    }
}
