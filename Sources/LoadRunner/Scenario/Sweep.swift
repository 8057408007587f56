import FeatureModel

/// A scenario that sweeps one parameter over a list of values: one result per value, run one after another, each
/// after a warm-up whose figures are left out. This is how single-versus-batched becomes a curve and how capacity
/// is measured (``CapacityResult``).
package struct Sweep: Sendable, Hashable {
    package enum Parameter: String, Sendable, Hashable, CaseIterable {
        /// constant-vus: the VUs.
        case vus
        /// constant-arrival-rate: iterations per `timeUnit`.
        case rate
        /// The operation's edits or features per request (`adds` of applyEdits, `batchSize` of the others).
        case batchSize
    }

    package var parameter: Parameter
    package var values: [Int]
    /// How long each point runs before it is measured (time-based executors only).
    package var warmUp: Duration
    /// The p95 request latency a point must keep to count as usable capacity; nil when the file names none.
    package var slo: Duration?

    package init(parameter: Parameter, values: [Int], warmUp: Duration, slo: Duration? = nil) {
        self.parameter = parameter
        self.values = values
        self.warmUp = warmUp
        self.slo = slo
    }
}

/// Where a scenario of an expanded sweep belongs.
package struct SweepPoint: Sendable, Hashable, Codable {
    /// The swept scenario's name in the file.
    package var sweep: String
    package var parameter: String
    package var value: Int
    /// The p95 limit in milliseconds for usable capacity, when the file names one.
    package var sloMilliseconds: Double?

    package init(sweep: String, parameter: String, value: Int, sloMilliseconds: Double?) {
        self.sweep = sweep
        self.parameter = parameter
        self.value = value
        self.sloMilliseconds = sloMilliseconds
    }
}

extension ScenarioSpec {
    /// The name of point `value` of a sweep of `parameter`, e.g. `capacity[vus=8]`.
    static func pointName(_ name: String, _ parameter: Sweep.Parameter, _ value: Int) -> String {
        "\(name)[\(parameter.rawValue)=\(value)]"
    }

    /// This scenario with `value` for the swept parameter (and, for a warm-up, `duration` as its length).
    func applying(_ parameter: Sweep.Parameter, _ value: Int, duration: Duration?) -> ScenarioSpec {
        var spec = self
        if parameter == .batchSize {
            spec.operations[0] = spec.operations[0].sweeping(batchSize: value)
        } else if let swept = spec.executor.owner.sweeping(parameter, value) {
            spec.executor = swept.executor
        }
        if let duration, let lasting = spec.executor.owner.lasting(duration) { spec.executor = lasting.executor }
        return spec
    }
}

extension [ScenarioSpec] {
    /// Every swept scenario replaced by its points in sequence (warm-up, point, warm-up, point, …), the first
    /// starting when the swept scenario would have and each next one after the previous; scenarios that started
    /// after the swept one now start after its last point.
    func expandingSweeps() -> [ScenarioSpec] {
        var result: [ScenarioSpec] = []
        var lastOf: [String: String] = [:]
        for spec in self {
            guard let sweep = spec.sweep else {
                result.append(spec)
                continue
            }
            var chain: [ScenarioSpec] = []
            for value in sweep.values {
                let name = ScenarioSpec.pointName(spec.name, sweep.parameter, value)
                if sweep.warmUp > .zero {
                    var warmUp = spec.applying(sweep.parameter, value, duration: sweep.warmUp)
                    warmUp.name = name + " warm-up"
                    warmUp.sweep = nil
                    warmUp.isWarmUp = true
                    chain.append(warmUp)
                }
                var point = spec.applying(sweep.parameter, value, duration: nil)
                point.name = name
                point.sweep = nil
                point.sweepPoint = SweepPoint(
                    sweep: spec.name, parameter: sweep.parameter.rawValue, value: value,
                    sloMilliseconds: sweep.slo.map { $0.seconds * 1000 })
                point.tags["sweep"] = spec.name
                chain.append(point)
            }
            for index in chain.indices where index > 0 {
                chain[index].startTime = .zero
                chain[index].startAfter = chain[index - 1].name
            }
            lastOf[spec.name] = chain.last?.name
            result += chain
        }
        return result.map { spec in
            var spec = spec
            if let after = spec.startAfter, let last = lastOf[after] { spec.startAfter = last }
            return spec
        }
    }
}
