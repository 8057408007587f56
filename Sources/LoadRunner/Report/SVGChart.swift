import Foundation

/// A line or bar chart drawn as inline SVG: axes with round-number ticks, a legend, and a `viewBox` so it scales to
/// the page (phone width included) and prints. No scripts, no external resources.
struct SVGChart {
    struct Series {
        var name: String
        var color: String
        var points: [(x: Double, y: Double)]
        /// Bars instead of a line.
        var bars = false
        /// A dot on each point (measured points of a sweep); series of three points or fewer always get them.
        var markers = false
    }

    var title: String
    var xLabel: String
    var yLabel: String
    var series: [Series]
    /// A logarithmic y axis (for latency spanning orders of magnitude).
    var logarithmicY = false
    /// A logarithmic x axis (for a sweep over 1, 10, 100, 1000).
    var logarithmicX = false
    /// Tick labels for x when the axis is not linear in meaning (e.g. percentiles), by x value.
    var xTickLabels: [(x: Double, label: String)]?
    /// The x range to draw, when several charts must share one (the per-second charts of a scenario); otherwise the
    /// points' own range.
    var xRange: ClosedRange<Double>?

    static let width = 640.0
    static let plotAreaHeight = 188.0
    static let left = 64.0
    static let bottom = 44.0
    /// Legend text size in viewBox units (the page's CSS uses the same), to lay the legend out in rows.
    static let legendFont = 14.0

    /// The legend laid out in rows above the plot, left to right: each entry's position, and the rows used.
    func legendLayout() -> (positions: [(x: Double, row: Int)], rows: Int) {
        var positions: [(x: Double, row: Int)] = []
        var x = Self.left
        var row = 0
        for line in series {
            let width = 18 + Double(line.name.count) * Self.legendFont * 0.6 + 16
            if x + width > Self.width - 8 && x > Self.left {
                row += 1
                x = Self.left
            }
            positions.append((x, row))
            x += width
        }
        return (positions, row + 1)
    }

    /// Colours that stay apart in print and for common colour-vision deficiencies.
    static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#7f7f7f"]

    var svg: String {
        let points = series.flatMap(\.points).filter { $0.x.isFinite && $0.y.isFinite }
        guard !points.isEmpty else {
            return #"<p class="empty">\#(HTMLRenderer.escape(title)): no data.</p>"#
        }
        let logX = logarithmicX && points.allSatisfy { $0.x > 0 }
        let xs = points.map { logX ? log10($0.x) : $0.x }
        var xMin = xRange.map { logX ? log10($0.lowerBound) : $0.lowerBound } ?? xs.min()!
        var xMax = xRange.map { logX ? log10($0.upperBound) : $0.upperBound } ?? xs.max()!
        if series.contains(where: \.bars) {
            xMin -= 0.5
            xMax += 0.5
        }
        if xMax == xMin {
            // One x (a run shorter than a second): the points stand in the middle, not on the y axis.
            xMin -= 0.5
            xMax += 0.5
        }
        let ys = points.map(\.y)
        let yTicks: [Double]
        let yMin: Double
        let yMax: Double
        if logarithmicY {
            let positive = ys.filter { $0 > 0 }
            let low = pow(10, floor(log10(positive.min() ?? 1)))
            let high = pow(10, ceil(log10(max(positive.max() ?? 10, low * 10))))
            yMin = low
            yMax = high
            yTicks = stride(from: log10(low), through: log10(high), by: 1).map { pow(10, $0) }
        } else {
            yMin = 0
            // Counts: at least 0…1, so an all-zero series draws a flat line on round ticks.
            let ticks = Self.ticks(upTo: max(ys.max() ?? 1, 1))
            yTicks = ticks
            yMax = ticks.last ?? 1
        }
        // The legend gets its own rows between the title and the plot, so lines never run through it.
        let legend = legendLayout()
        let top = 30 + Double(legend.rows) * 18
        let height = top + Self.plotAreaHeight + Self.bottom
        // Labelled ticks (percentiles) may end in a long label at the right edge.
        let right = xTickLabels == nil && !logX ? 20.0 : 34.0
        let plotWidth = Self.width - Self.left - right
        let plotHeight = Self.plotAreaHeight
        func px(_ x: Double) -> Double { Self.left + ((logX ? log10(x) : x) - xMin) / (xMax - xMin) * plotWidth }
        func py(_ y: Double) -> Double {
            if logarithmicY {
                let clamped = max(y, yMin)
                return top + plotHeight - (log10(clamped) - log10(yMin)) / (log10(yMax) - log10(yMin)) * plotHeight
            }
            return top + plotHeight - (y - yMin) / (yMax - yMin) * plotHeight
        }
        var out =
            #"<svg class="chart" viewBox="0 0 \#(Int(Self.width)) \#(Int(height))" role="img" aria-label="\#(HTMLRenderer.escape(title))" xmlns="http://www.w3.org/2000/svg">"#
        out += #"<text x="\#(Self.left)" y="19" class="title">\#(HTMLRenderer.escape(title))</text>"#
        for tick in yTicks {
            let y = py(tick)
            out += #"<line x1="\#(Self.f(Self.left))" y1="\#(Self.f(y))" x2="\#(Self.f(Self.width - right))" y2="\#(Self.f(y))" class="grid"/>"#
            out += #"<text x="\#(Self.f(Self.left - 6))" y="\#(Self.f(y + 4))" class="tick" text-anchor="end">\#(Self.label(tick))</text>"#
        }
        // x is whole seconds unless labelled otherwise: no fractional ticks.
        let xTicks: [(Double, String)]
        if let xTickLabels {
            xTicks = xTickLabels
        } else if logX {
            // Decades, and the measured values themselves when there are few.
            let values = Set(points.map(\.x))
            xTicks = (values.count <= 8 ? values.sorted() : stride(from: xMin.rounded(.up), through: xMax, by: 1).map { pow(10, $0) }).map {
                ($0, Self.label($0))
            }
        } else {
            xTicks = Self.ticks(from: xMin, upTo: xMax, minimumStep: 1).map { ($0, Self.label($0)) }
        }
        for (x, label) in xTicks where (logX ? log10(x) : x) >= xMin - 1e-9 && (logX ? log10(x) : x) <= xMax + 1e-9 {
            out +=
                #"<text x="\#(Self.f(px(x)))" y="\#(Self.f(height - Self.bottom + 18))" class="tick" text-anchor="middle">\#(HTMLRenderer.escape(label))</text>"#
        }
        out +=
            #"<line x1="\#(Self.f(Self.left))" y1="\#(Self.f(top + plotHeight))" x2="\#(Self.f(Self.width - right))" y2="\#(Self.f(top + plotHeight))" class="axis"/>"#
        out +=
            #"<text x="\#(Self.f(Self.left + plotWidth / 2))" y="\#(Self.f(height - 6))" class="label" text-anchor="middle">\#(HTMLRenderer.escape(xLabel + (logX ? " (log scale)" : "")))</text>"#
        out +=
            #"<text x="14" y="\#(Self.f(top + plotHeight / 2))" class="label" text-anchor="middle" transform="rotate(-90 14 \#(Self.f(top + plotHeight / 2)))">\#(HTMLRenderer.escape(yLabel))</text>"#
        let barSeries = series.filter(\.bars)
        let slot = plotWidth / max(xMax - xMin, 1) * 0.8
        let bottomOfPlot = top + plotHeight
        for (index, line) in series.enumerated() {
            let valid = line.points.filter { $0.x.isFinite && $0.y.isFinite }.sorted { $0.x < $1.x }
            if line.bars {
                let position = Double(barSeries.firstIndex { $0.name == line.name } ?? 0)
                let barWidth = slot / Double(max(barSeries.count, 1))
                for point in valid {
                    let x = px(point.x) - slot / 2 + position * barWidth
                    let y = py(point.y)
                    out +=
                        #"<rect x="\#(Self.f(x))" y="\#(Self.f(y))" width="\#(Self.f(max(barWidth, 1)))" height="\#(Self.f(max(bottomOfPlot - y, 0)))" fill="\#(line.color)"><title>\#(HTMLRenderer.escape("\(line.name): \(Self.label(point.y))"))</title></rect>"#
                }
            } else {
                if valid.count > 1 {
                    let path = valid.map { "\(Self.f(px($0.x))),\(Self.f(py($0.y)))" }.joined(separator: " ")
                    out += #"<polyline points="\#(path)" fill="none" stroke="\#(line.color)" stroke-width="2"/>"#
                }
                if line.markers || valid.count <= 3 {
                    for point in valid {
                        out +=
                            #"<circle cx="\#(Self.f(px(point.x)))" cy="\#(Self.f(py(point.y)))" r="3.5" fill="\#(line.color)"><title>\#(HTMLRenderer.escape("\(line.name): \(Self.label(point.y))"))</title></circle>"#
                    }
                }
            }
            let entry = legend.positions[index]
            let legendY = 42 + Double(entry.row) * 18
            out += #"<rect x="\#(Self.f(entry.x))" y="\#(Self.f(legendY - 10))" width="12" height="12" fill="\#(line.color)"/>"#
            out += #"<text x="\#(Self.f(entry.x + 17))" y="\#(Self.f(legendY + 1))" class="legend">\#(HTMLRenderer.escape(line.name))</text>"#
        }
        return out + "</svg>"
    }

    /// Round-number ticks from 0 to at least `maximum` (about five).
    static func ticks(upTo maximum: Double) -> [Double] {
        let step = niceStep(maximum / 5)
        let count = Int((maximum / step).rounded(.up))
        return (0...max(count, 1)).map { Double($0) * step }
    }

    static func ticks(from minimum: Double, upTo maximum: Double, minimumStep: Double = 0) -> [Double] {
        let step = max(niceStep((maximum - minimum) / 6), minimumStep)
        let first = (minimum / step).rounded(.up) * step
        return stride(from: first, through: maximum, by: step).map { $0 }
    }

    static func niceStep(_ raw: Double) -> Double {
        guard raw > 0, raw.isFinite else { return 1 }
        let magnitude = pow(10, floor(log10(raw)))
        let fraction = raw / magnitude
        let nice: Double = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10
        return nice * magnitude
    }

    static func label(_ value: Double) -> String {
        if value == 0 { return "0" }
        if abs(value) >= 1_000_000 { return f(value / 1_000_000) + "M" }
        if abs(value) >= 10_000 { return f(value / 1_000) + "k" }
        if abs(value) >= 100 { return String(format: "%.0f", value) }
        if abs(value) >= 1 { return f(value) }
        return String(format: "%.3g", value)
    }

    /// A coordinate or short number with at most two decimals and no trailing zeros.
    static func f(_ value: Double) -> String {
        var text = String(format: "%.2f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}
