import FeatureModel

/// When the iterations of an arrival-rate executor are due. Pure: iteration `k`'s intended start is a function of
/// `k` alone, so any number of generators (execution segments) agree on it.
///
/// The rate is piecewise linear in iterations per time unit; iteration `k` (0-based) is due when the integral of
/// the rate since the start first exceeds `k` — every `timeUnit / rate` for a constant rate, starting at 0.
package struct OpenSchedule: Sendable, Hashable {
    /// Per stage: start offset (s), iterations before it, rate per second at its start and end, length (s).
    private struct Segment: Sendable, Hashable {
        var start: Double
        var before: Double
        var fromRate: Double
        var toRate: Double
        var length: Double
        var iterations: Double { (fromRate + toRate) / 2 * length }
    }

    private let segments: [Segment]
    /// No iteration is due at or after this offset.
    package let end: Duration
    /// Iterations due before ``end``.
    package let plannedIterations: Int
    /// Most VUs the pool may grow to, and the pool it starts with.
    package let maxVUs: Int
    package let preAllocatedVUs: Int

    package init(_ c: ConstantArrivalRate) {
        self.init(
            start: c.rate, timeUnit: c.timeUnit, stages: [Stage(duration: c.duration, target: c.rate)],
            preAllocatedVUs: c.preAllocatedVUs, maxVUs: c.maxVUs)
    }

    package init(_ c: RampingArrivalRate) {
        self.init(start: c.startRate, timeUnit: c.timeUnit, stages: c.stages, preAllocatedVUs: c.preAllocatedVUs, maxVUs: c.maxVUs)
    }

    /// The schedule of an arrival-rate executor, or nil for a closed-model one.
    package init?(_ executor: ExecutorConfig) {
        guard case .open(let schedule) = executor.owner.schedule else { return nil }
        self = schedule
    }

    init(start: Int, timeUnit: Duration, stages: [Stage], preAllocatedVUs: Int, maxVUs: Int) {
        let unit = max(timeUnit.seconds, 1e-9)
        var segments: [Segment] = []
        var offset = 0.0
        var before = 0.0
        var from = Double(start) / unit
        for stage in stages {
            let to = Double(stage.target) / unit
            let segment = Segment(start: offset, before: before, fromRate: from, toRate: to, length: stage.duration.seconds)
            segments.append(segment)
            offset += segment.length
            before += segment.iterations
            from = to
        }
        self.segments = segments
        end = stages.reduce(.zero) { $0 + $1.duration }
        // Rounded to 1e-9 so that 10/s for 1 s plans 10, not 11, iterations despite floating-point error.
        plannedIterations = Int(((before * 1e9).rounded() / 1e9).rounded(.up))
        self.preAllocatedVUs = preAllocatedVUs
        self.maxVUs = max(maxVUs, preAllocatedVUs)
    }

    /// The offset at which iteration `k` is due, or nil when it falls after the schedule's end.
    package func start(of k: Int) -> Duration? {
        guard k >= 0, k < plannedIterations else { return nil }
        let target = Double(k)
        // The first segment whose cumulative count passes the target (binary search; the counts only grow).
        var low = 0
        var high = segments.count - 1
        while low < high {
            let mid = (low + high) / 2
            if segments[mid].before + segments[mid].iterations > target { high = mid } else { low = mid + 1 }
        }
        let index = low
        let segment = segments[index]
        let remaining = target - segment.before
        let a = (segment.toRate - segment.fromRate) / (2 * max(segment.length, 1e-12))
        let b = segment.fromRate
        let s: Double
        if remaining <= 0 {
            s = 0
        } else if abs(a) < 1e-12 {
            s = b > 0 ? remaining / b : segment.length
        } else {
            let discriminant = max(0, b * b + 4 * a * remaining)
            s = (-b + discriminant.squareRoot()) / (2 * a)
        }
        let offset = segment.start + min(max(s, 0), segment.length)
        return offset < end.seconds ? .seconds(offset) : nil
    }

    /// What the dispatcher does next, after starting (or dropping) `started` iterations, at `elapsed`.
    package enum Decision: Sendable, Hashable {
        /// Iteration `started` was due at `intended`; start it now (immediately when behind, as vegeta's pacer does).
        case start(intended: Duration)
        /// The next iteration is due at this offset.
        case wait(until: Duration)
        /// Every iteration of the schedule has been dispatched.
        case done
    }

    /// vegeta's pacer: fire at once when the next iteration is already due, else wait for it.
    package func pace(elapsed: Duration, started: Int) -> Decision {
        guard let due = start(of: started) else { return .done }
        return due <= elapsed ? .start(intended: due) : .wait(until: due)
    }
}
