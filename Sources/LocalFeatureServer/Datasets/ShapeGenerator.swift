import FeatureModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Seeded polygons and polylines shaped like real boundaries and trails, for generated rows (``RowGenerator``).
///
/// Pure and deterministic: the same box and generator state give the same shape. Coordinates are WGS 84 degrees
/// rounded to 1e-7 (about 1 cm), inside `box`.
///
/// Polygons (park boundaries):
/// - Each ring is star-shaped: vertices at strictly increasing angles around a centre, at a radius that varies
///   smoothly (a few harmonics) with a little per-vertex roughness, between 0.6 and 1.4 times the ring's base
///   radius. A star-shaped ring is simple, so every generated polygon is valid without a geometry check.
/// - Vertex counts are log-normal: the first exterior ring has a median of ``medianRingVertices`` and a spread of
///   one natural-log unit (about 1 in 50 rings has over 1,000 vertices, a few in 1,000 over 2,000, as coastlines
///   and large boundaries do), clamped to 12…``maximumRingVertices``.
/// - Base radii are log-uniform from 0.003° (about 300 m, a city park) to 0.4° (about 40 km, a national park), so
///   map tiles at every zoom level hold different numbers of them. A ring is never so small that its vertices
///   come closer than about 1 m.
/// - A quarter have one or two holes (inholdings), each strictly inside the exterior ring (within 0.47 of its base
///   radius, where the exterior never comes closer than 0.6) and apart from each other. About one in ten has two
///   or three parts, on opposite sides of the first, never touching it.
/// - Rings are wound as ArcGIS wants: exterior rings clockwise, holes counter-clockwise; each ring is closed
///   (its last vertex is its first).
///
/// Polylines (trails): a correlated random walk (the heading turns a little at each step) of log-normal vertex
/// count, median ``medianPathVertices``, clamped to 2…``maximumPathVertices``, with a step length per trail
/// log-uniform from 0.0003° to 0.01° (30 m to 1 km). About one in seven has two or three paths, each starting a few
/// steps from where the previous one ended.
enum ShapeGenerator {
    /// The median vertex count of a polygon's first exterior ring.
    static let medianRingVertices = 120.0
    /// The largest vertex count of one generated ring.
    static let maximumRingVertices = 6_000
    /// The median vertex count of a polyline's path.
    static let medianPathVertices = 60.0
    /// The largest vertex count of one generated path.
    static let maximumPathVertices = 1_000

    /// The smallest and largest base radius of a polygon's first ring, degrees.
    private static let radii = 0.003...0.4
    /// The closest that neighbouring ring vertices come, degrees (about 1 m).
    private static let vertexSpacing = 1e-5
    /// The range of a polyline's step length, degrees.
    private static let steps = 0.0003...0.01

    /// A park-like polygon inside `box` (WGS 84 degrees).
    static func polygon(in box: Extent, random: inout SplitMix64) -> Geometry {
        let vertices = logNormalCount(median: medianRingVertices, in: 12...maximumRingVertices, &random)
        let smallest = max(radii.lowerBound, Double(vertices) * vertexSpacing / (2 * .pi * 0.6))
        let radius = logUniform(min(smallest, radii.upperBound)...max(smallest, radii.upperBound), &random)
        var rings = [ring(x: 0, y: 0, radius: radius, vertices: vertices, clockwise: true, &random)]
        let kind = random.nextUnit()
        if kind < 0.25 {
            // Holes: centres at 0.3 r on opposite sides, base radius 0.12 r, so a hole reaches at most 0.468 r.
            let direction = uniform(0...(2 * .pi), &random)
            let holeVertices = max(8, vertices / 5)
            for index in 0..<(kind < 0.08 ? 2 : 1) {
                let angle = direction + Double(index) * .pi
                rings.append(
                    ring(
                        x: 0.3 * radius * cos(angle), y: 0.3 * radius * sin(angle), radius: 0.12 * radius, vertices: holeVertices,
                        clockwise: false, &random))
            }
        } else if kind < 0.35 {
            // More parts, on opposite sides of the first: each lies beyond both reaches (1.4 r) plus a gap.
            let direction = uniform(0...(2 * .pi), &random)
            for index in 0..<(kind < 0.3 ? 1 : 2) {
                let partRadius = radius * uniform(0.2...0.6, &random)
                let distance = 1.4 * (radius + partRadius) + radius * uniform(0.1...1, &random)
                let angle = direction + Double(index) * .pi
                let partVertices = max(12, Int(Double(vertices) * partRadius / radius))
                rings.append(
                    ring(
                        x: distance * cos(angle), y: distance * sin(angle), radius: partRadius, vertices: partVertices, clockwise: true,
                        &random))
            }
        }
        return .polygon(rings: placed(rings, in: box, closing: true, &random))
    }

    /// A trail-like polyline inside `box` (WGS 84 degrees).
    static func polyline(in box: Extent, random: inout SplitMix64) -> Geometry {
        let step = logUniform(steps, &random)
        var heading = uniform(0...(2 * .pi), &random)
        var (x, y) = (0.0, 0.0)
        var paths: [[[Double]]] = []
        let kind = random.nextUnit()
        for index in 0..<(kind < 0.05 ? 3 : kind < 0.15 ? 2 : 1) {
            if index > 0 {
                let gap = 3 * step
                let angle = uniform(0...(2 * .pi), &random)
                (x, y) = (x + gap * cos(angle), y + gap * sin(angle))
            }
            let count = logNormalCount(median: medianPathVertices, in: 2...maximumPathVertices, &random, spread: 0.7)
            var path = [[x, y]]
            path.reserveCapacity(count)
            for _ in 1..<count {
                heading += 0.35 * gaussian(&random)
                let length = step * uniform(0.5...1.5, &random)
                (x, y) = (x + length * cos(heading), y + length * sin(heading))
                path.append([x, y])
            }
            paths.append(path)
        }
        return .polyline(paths: placed(paths, in: box, closing: false, &random))
    }

    /// A star-shaped ring around (`x`, `y`) of `vertices` distinct vertices, not yet closed (``placed`` closes it).
    private static func ring(x: Double, y: Double, radius: Double, vertices: Int, clockwise: Bool, _ random: inout SplitMix64) -> [[Double]] {
        // Harmonics 2…6 with amplitudes up to 0.25/k (together at most 0.363) and roughness up to 0.037: the
        // radius stays within 0.6…1.4 times `radius`.
        let harmonics = (2...6).map { k in (k: Double(k), amplitude: 0.25 / Double(k) * random.nextUnit(), phase: uniform(0...(2 * .pi), &random)) }
        let roughness = 0.037 * random.nextUnit()
        let start = uniform(0...(2 * .pi), &random)
        var ring: [[Double]] = []
        ring.reserveCapacity(vertices + 1)
        for index in 0..<vertices {
            // Each vertex in its own slice of the circle, at most 0.8 of the slice in: angles strictly increase.
            let angle = start + (Double(index) + 0.8 * random.nextUnit()) / Double(vertices) * 2 * .pi
            var scale = 1 + roughness * (2 * random.nextUnit() - 1)
            for harmonic in harmonics { scale += harmonic.amplitude * sin(harmonic.k * angle + harmonic.phase) }
            ring.append([x + radius * scale * cos(angle), y + radius * scale * sin(angle)])
        }
        if clockwise { ring.reverse() }  // increasing angles run counter-clockwise
        return ring
    }

    /// `parts` (around the origin) moved to a random place inside `box`, shrunk first if they would not fit,
    /// rounded to 1e-7. With `closing`, each part is a ring and gets its first vertex again as its last, after
    /// rounding, so the two are exactly equal.
    private static func placed(_ parts: [[[Double]]], in box: Extent, closing: Bool, _ random: inout SplitMix64) -> [[[Double]]] {
        var (lowX, highX, lowY, highY) = (Double.infinity, -Double.infinity, Double.infinity, -Double.infinity)
        for part in parts {
            for vertex in part {
                (lowX, highX) = (min(lowX, vertex[0]), max(highX, vertex[0]))
                (lowY, highY) = (min(lowY, vertex[1]), max(highY, vertex[1]))
            }
        }
        // Clear of the box's edges by more than rounding moves a coordinate.
        let marginX = max(2e-7, (box.xmax - box.xmin) * 1e-6)
        let marginY = max(2e-7, (box.ymax - box.ymin) * 1e-6)
        let (room, roomHeight) = (box.xmax - box.xmin - 2 * marginX, box.ymax - box.ymin - 2 * marginY)
        let scale = min(1, room / max(highX - lowX, .leastNormalMagnitude), roomHeight / max(highY - lowY, .leastNormalMagnitude))
        let left = box.xmin + marginX + max(0, room - (highX - lowX) * scale) * random.nextUnit()
        let bottom = box.ymin + marginY + max(0, roomHeight - (highY - lowY) * scale) * random.nextUnit()
        func round(_ value: Double) -> Double { (value * 1e7).rounded() / 1e7 }
        return parts.map { part in
            let moved = part.map { [round(left + ($0[0] - lowX) * scale), round(bottom + ($0[1] - lowY) * scale)] }
            return closing ? moved + [moved[0]] : moved
        }
    }

    private static func logNormalCount(median: Double, in range: ClosedRange<Int>, _ random: inout SplitMix64, spread: Double = 1) -> Int {
        let count = Int((median * exp(spread * gaussian(&random))).rounded())
        return min(range.upperBound, max(range.lowerBound, count))
    }

    /// A standard normal draw (Box–Muller).
    private static func gaussian(_ random: inout SplitMix64) -> Double {
        let u = 1 - random.nextUnit()  // (0, 1]
        return sqrt(-2 * log(u)) * cos(2 * .pi * random.nextUnit())
    }

    private static func logUniform(_ range: ClosedRange<Double>, _ random: inout SplitMix64) -> Double {
        exp(uniform(log(range.lowerBound)...log(range.upperBound), &random))
    }

    private static func uniform(_ range: ClosedRange<Double>, _ random: inout SplitMix64) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * random.nextUnit()
    }
}
