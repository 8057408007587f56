import FeatureModel
import GEOSSupport

/// `maxAllowableOffset` for one query: each answered polyline and polygon simplified, in the output spatial
/// reference's units, so that no vertex of the stored shape lies farther than the offset from the answered one
/// (GEOS' topology-preserving simplify: rings stay rings, holes stay inside, parts do not cross). Points and
/// multipoints are answered as stored.
///
/// Isolation: made and used by the one read that answers the query, on its thread; its GEOS context is used by
/// nothing else. A shape GEOS cannot read or simplify is answered unsimplified rather than dropped.
final class Generalizer: @unchecked Sendable {
    let offset: Double
    private let context: GEOSContext?

    init(offset: Double) {
        self.offset = offset
        context = try? GEOSContext()
    }

    /// `geometry` (already in the output spatial reference) simplified to the offset.
    func generalize(_ geometry: Geometry) -> Geometry {
        switch geometry {
        case .polyline, .polygon: break
        default: return geometry
        }
        guard let context, let shape = try? context.geometry(geometry), let simplified = try? shape.simplified(tolerance: offset).arcGIS()
        else { return geometry }
        return simplified
    }
}
