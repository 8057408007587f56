import FeatureModel

/// Generates seeded rows for the layers of a dataset that have a `generator`, appended to their seed rows.
///
/// Pure and deterministic: the same definition, row counts and seeds give the same rows. Each field gets a value
/// that the store accepts: a code of its coded-value domain, a number in its range domain, a string within its
/// length, a geometry inside the layer's extent, in WGS 84 as the store keeps it (a point; a park-like polygon or
/// a trail-like polyline from ``ShapeGenerator``). Foreign keys point at rows of the origin (seeded or generated,
/// origins first); a nullable foreign key of a simple relationship is left null one time in ten (orphans, as a
/// zero-or-one relationship allows). Rows of a many-to-many relationship table link random pairs. Contingent
/// values: each field group's values are taken from one of its contingencies, so restrictive groups hold.
enum RowGenerator {
    /// A foreign key the generator fills from another layer's keys.
    private struct ForeignKey {
        var field: String
        var originLayerId: Int
        var originKeyField: String
        var mayBeNull: Bool
    }

    /// `definition` with generated rows appended to each layer that has a generator.
    /// - Parameters:
    ///   - rowsOverride: Replaces every generator's `rows` when given.
    static func addingGeneratedRows(to definition: ServiceDefinition, rowsOverride: Int?) -> ServiceDefinition {
        let counts = definition.layers.map { layer in layer.generator.map { rowsOverride ?? $0.rows } ?? 0 }
        guard counts.contains(where: { $0 > 0 }) else { return definition }
        let foreignKeys = Dictionary(uniqueKeysWithValues: definition.layers.map { ($0.info.id, self.foreignKeys(of: $0.info, in: definition)) })
        var keyFields: [Int: Set<String>] = [:]
        for keys in foreignKeys.values {
            for key in keys { keyFields[key.originLayerId, default: []].insert(key.originKeyField) }
        }
        var keys: [Int: [String: [JSONValue]]] = [:]
        var result = definition
        for index in order(definition, foreignKeys: foreignKeys) {
            let layer = definition.layers[index]
            let wanted = keyFields[layer.info.id] ?? []
            func remember(_ row: Feature) {
                for field in wanted { keys[layer.info.id, default: [:]][field, default: []].append(row[attribute: field] ?? .null) }
            }
            layer.seedRows.forEach(remember)
            guard counts[index] > 0, let settings = layer.generator else { continue }
            var random = SplitMix64(seed: settings.seed &* 0x9E37_79B9 &+ UInt64(layer.info.id))
            let extent = layer.info.extent ?? definition.extent
            var rows: [Feature] = []
            rows.reserveCapacity(counts[index])
            for number in 0..<counts[index] {
                let row = makeRow(
                    layer, rowNumber: layer.seedRows.count + number + 1, foreignKeys: foreignKeys[layer.info.id] ?? [], keys: keys,
                    extent: extent, random: &random)
                remember(row)
                rows.append(row)
            }
            result.layers[index].seedRows += rows
        }
        return result
    }

    private static func foreignKeys(of layer: LayerInfo, in definition: ServiceDefinition) -> [ForeignKey] {
        var keys: [ForeignKey] = []
        for relationship in layer.relationships ?? [] where relationship.role == .destination && relationship.cardinality != .manyToMany {
            guard let origin = definition.layer(id: relationship.relatedTableId)?.info,
                let originSide = origin.relationship(id: relationship.id)
            else { continue }
            let nullable = layer.field(named: relationship.keyField)?.isNullable ?? false
            keys.append(
                ForeignKey(
                    field: relationship.keyField, originLayerId: origin.id, originKeyField: originSide.keyField,
                    mayBeNull: nullable && !relationship.composite))
        }
        for other in definition.layers.map(\.info) {
            for relationship in other.relationships ?? []
            where relationship.cardinality == .manyToMany && relationship.relationshipTableId == layer.id {
                guard let linkField = relationship.keyFieldInRelationshipTable else { continue }
                keys.append(ForeignKey(field: linkField, originLayerId: other.id, originKeyField: relationship.keyField, mayBeNull: false))
            }
        }
        return keys
    }

    /// Layer indexes with every origin before the layers that point at it (id order where there is no dependency).
    private static func order(_ definition: ServiceDefinition, foreignKeys: [Int: [ForeignKey]]) -> [Int] {
        var done: Set<Int> = []
        var order: [Int] = []
        var remaining = Array(definition.layers.indices)
        while !remaining.isEmpty {
            let ready = remaining.filter { index in
                let id = definition.layers[index].info.id
                return (foreignKeys[id] ?? []).allSatisfy { done.contains($0.originLayerId) || $0.originLayerId == id }
            }
            let next = ready.first ?? remaining[0]  // a cycle: break it in id order
            order.append(next)
            done.insert(definition.layers[next].info.id)
            remaining.removeAll { $0 == next }
        }
        return order
    }

    private static func makeRow(
        _ layer: LayerDefinition, rowNumber: Int, foreignKeys: [ForeignKey], keys: [Int: [String: [JSONValue]]], extent: Extent?,
        random: inout SplitMix64
    ) -> Feature {
        let info = layer.info
        var attributes: [String: JSONValue] = [:]
        for field in info.fields where field.type != .oid && field.type != .geometry {
            if let key = foreignKeys.first(where: { $0.field.lowercased() == field.name.lowercased() }) {
                let candidates = keys[key.originLayerId]?[key.originKeyField] ?? []
                if candidates.isEmpty || (key.mayBeNull && random.next() % 10 == 0) {
                    attributes[field.name] = .null
                } else {
                    attributes[field.name] = candidates[Int(random.next() % UInt64(candidates.count))]
                }
                continue
            }
            attributes[field.name] = value(for: field, number: rowNumber, random: &random)
        }
        var fixed: Set<String> = []
        for group in layer.contingentValues ?? [] {
            let candidates = group.contingencies.filter { contingency in
                zip(group.fields, contingency).allSatisfy { field, value in !fixed.contains(field) || value.matches(attributes[field] ?? .null) }
            }
            guard !candidates.isEmpty else { continue }
            let contingency = candidates[Int(random.next() % UInt64(candidates.count))]
            for (name, value) in zip(group.fields, contingency) where !fixed.contains(name) {
                guard let field = info.field(named: name) else { continue }
                switch value {
                case .any: break
                case .null: attributes[field.name] = .null
                case .code(let code): attributes[field.name] = code
                case .range(let low, let high): attributes[field.name] = number(in: low...high, integer: field.type.isInteger, random: &random)
                }
                fixed.insert(name)
            }
        }
        var geometry: Geometry?
        let box = extent.map(geographic) ?? Extent(xmin: -180, ymin: -90, xmax: 180, ymax: 90)
        switch info.geometryType {
        case .point?:
            geometry = .point(x: uniform(box.xmin...box.xmax, &random), y: uniform(box.ymin...box.ymax, &random))
        case .polyline?, .polygon?:
            // A stream of its own per shape, seeded from two draws (as many as a point takes), so the attributes of
            // later rows do not depend on how many vertices this shape has.
            var shapes = SplitMix64(seed: random.next() ^ (random.next() << 1))
            geometry =
                info.geometryType == .polyline
                ? ShapeGenerator.polyline(in: box, random: &shapes) : ShapeGenerator.polygon(in: box, random: &shapes)
        default:
            break
        }
        return Feature(attributes: attributes, geometry: geometry)
    }

    /// `extent` in WGS 84, in which generated geometries are given: a Web Mercator extent is unprojected.
    private static func geographic(_ extent: Extent) -> Extent {
        guard let wkid = extent.spatialReference?.wkid ?? extent.spatialReference?.latestWkid,
            QuerySpatialReference(wkid: Int64(wkid)) == .webMercator
        else { return extent }
        let (west, south) = QuerySpatialReference.unproject(x: extent.xmin, y: extent.ymin)
        let (east, north) = QuerySpatialReference.unproject(x: extent.xmax, y: extent.ymax)
        return Extent(xmin: max(-180, west), ymin: max(-90, south), xmax: min(180, east), ymax: min(90, north), spatialReference: .wgs84)
    }

    private static func value(for field: Field, number: Int, random: inout SplitMix64) -> JSONValue {
        switch field.domain {
        case .codedValue(_, let values)? where !values.isEmpty:
            return values[Int(random.next() % UInt64(values.count))].code
        case .range(_, let low, let high)?:
            return self.number(in: low...high, integer: field.type.isInteger, random: &random)
        default: break
        }
        switch field.type {
        case .globalID, .guid: return .string(GlobalID.make(using: &random))
        case .smallInteger: return .int(Int64(random.next() % 1_000))
        case .integer, .bigInteger: return .int(Int64(random.next() % 100_000))
        case .single, .double: return .double((uniform(0...10_000, &random) * 100).rounded() / 100)
        case .date: return .int(1_577_836_800_000 + Int64(random.next() % 157_680_000) * 1_000)  // 2020…2024
        default:
            var text = "\(field.alias ?? field.name) \(number)"
            if let length = field.length, length > 0, text.count > length { text = String(text.suffix(length)) }
            return .string(text)
        }
    }

    private static func number(in range: ClosedRange<Double>, integer: Bool, random: inout SplitMix64) -> JSONValue {
        if integer {
            let low = Int64(range.lowerBound.rounded(.up))
            let high = Int64(range.upperBound.rounded(.down))
            guard high >= low else { return .int(low) }
            return .int(low + Int64(random.next() % UInt64(high - low + 1)))
        }
        return .double((uniform(range, &random) * 1_000).rounded() / 1_000)
    }

    private static func uniform(_ range: ClosedRange<Double>, _ random: inout SplitMix64) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * random.nextUnit()
    }
}
