/// How a quantized answer's integer coordinates map back to the output spatial reference: the `transform` of a
/// query answered with `quantizationParameters` (JSON) and of every PBF answer.
///
/// For a grid coordinate `(i, j)`: `x = translate[0] + i × scale[0]`; `y = translate[1] − j × scale[1]` with
/// `upperLeft` (rows count down from the top) or `translate[1] + j × scale[1]` with `lowerLeft`. Paths, rings and
/// multipoints hold their first vertex as `(i, j)` and every later one as the difference from the one before it.
public struct QuantizationTransform: Sendable, Hashable, Codable {
    /// Where grid row 0 is.
    public enum OriginPosition: String, Sendable, Hashable, Codable, CaseIterable {
        case upperLeft
        case lowerLeft
    }

    /// Where grid row 0 is: the extent's top (`upperLeft`) or bottom (`lowerLeft`).
    public var originPosition: OriginPosition
    /// `[x, y, z, m]` cell sizes; z and m are 0 (answers carry no z or m).
    public var scale: [Double]
    /// `[x, y, z, m]` of the grid origin: the extent's left edge and its top (`upperLeft`) or bottom (`lowerLeft`).
    public var translate: [Double]

    /// A transform as an answer states it.
    public init(originPosition: OriginPosition, scale: [Double], translate: [Double]) {
        self.originPosition = originPosition
        self.scale = scale
        self.translate = translate
    }

    /// The grid of cell size `tolerance` with its origin at the `originPosition` corner of the extent.
    public init(originPosition: OriginPosition, tolerance: Double, xmin: Double, ymin: Double, ymax: Double) {
        self.init(
            originPosition: originPosition, scale: [tolerance, tolerance, 0, 0],
            translate: [xmin, originPosition == .upperLeft ? ymax : ymin, 0, 0])
    }

    /// The output coordinate of grid coordinate `(i, j)` (absolute, not a difference).
    public func coordinate(_ i: Double, _ j: Double) -> (x: Double, y: Double) {
        let x = translate[0] + i * scale[0]
        let y = originPosition == .upperLeft ? translate[1] - j * scale[1] : translate[1] + j * scale[1]
        return (x, y)
    }
}
