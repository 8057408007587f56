import FeatureModel

/// When the VUs of a closed-model executor start iterations. Pure: tested with plain durations, no clock.
///
/// Each VU asks ``decide(vu:vuIteration:claimed:elapsed:)`` before every iteration, after claiming a run-wide
/// iteration number from a shared counter (the number only makes payloads unique; `shared-iterations` also stops
/// on it).
package struct ClosedSchedule: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case shared(iterations: Int)
        case perVU(iterations: Int)
        case constant
        case ramping(VUStages)
    }

    let kind: Kind
    /// No iteration starts at or after this offset from the scenario's start.
    package let end: Duration
    /// VU tasks the scheduler starts.
    package let vus: Int

    /// The schedule of a closed-model executor, or nil for an arrival-rate one.
    package init?(_ executor: ExecutorConfig) {
        guard case .closed(let schedule) = executor.owner.schedule else { return nil }
        self = schedule
    }

    init(kind: Kind, end: Duration, vus: Int) {
        self.kind = kind
        self.end = end
        self.vus = vus
    }

    /// What VU `vu` (0-based) does next.
    package enum Decision: Sendable, Hashable {
        /// Start an iteration now.
        case start
        /// Idle until this offset, then ask again (a ramping VU above the current target).
        case wait(until: Duration)
        /// Start nothing more.
        case stop(ScenarioStopReason)
    }

    /// The decision for VU `vu`, which has run `vuIteration` iterations and claimed run-wide number `claimed`, at
    /// `elapsed` since the scenario began.
    package func decide(vu: Int, vuIteration: Int, claimed: Int, elapsed: Duration) -> Decision {
        switch kind {
        case .shared(let iterations):
            if claimed >= iterations { return .stop(.iterationsDone) }
            return elapsed >= end ? .stop(.maxDuration) : .start
        case .perVU(let iterations):
            if vuIteration >= iterations { return .stop(.iterationsDone) }
            return elapsed >= end ? .stop(.maxDuration) : .start
        case .constant:
            return elapsed >= end ? .stop(.durationDone) : .start
        case .ramping(let stages):
            if elapsed >= end { return .stop(.durationDone) }
            if stages.vus(at: elapsed) > vu { return .start }
            guard let next = stages.nextActive(vu: vu, after: elapsed), next < end else { return .stop(.durationDone) }
            return .wait(until: next)
        }
    }
}

/// The VU count of `ramping-vus` over time: linear between stages, changing one VU at a time.
package struct VUStages: Sendable, Hashable {
    /// (start offset in seconds, from VUs, to VUs, length in seconds) per stage.
    private let segments: [(start: Double, from: Int, to: Int, length: Double)]
    package let total: Duration

    package init(start: Int, stages: [Stage]) {
        var segments: [(Double, Int, Int, Double)] = []
        var offset = 0.0
        var from = start
        for stage in stages {
            let length = stage.duration.seconds
            segments.append((offset, from, stage.target, length))
            offset += length
            from = stage.target
        }
        self.segments = segments
        total = stages.reduce(.zero) { $0 + $1.duration }
    }

    package static func == (lhs: VUStages, rhs: VUStages) -> Bool {
        lhs.total == rhs.total && lhs.segments.elementsEqual(rhs.segments) { $0 == $1 }
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(total)
        for segment in segments { hasher.combine(segment.to) }
    }

    /// The VUs that should be running at `elapsed`: k6's linear interpolation, truncated toward the stage's start value.
    package func vus(at elapsed: Duration) -> Int {
        let t = elapsed.seconds
        for segment in segments where t < segment.start + segment.length {
            guard segment.length > 0 else { continue }
            let s = max(0, t - segment.start)
            let delta = Double(segment.to - segment.from) * s / segment.length
            return segment.from + Int(delta.rounded(.towardZero))
        }
        return segments.last?.to ?? 0
    }

    /// The earliest offset at or after `elapsed` at which VU `vu` (0-based) is active again, or nil.
    package func nextActive(vu: Int, after elapsed: Duration) -> Duration? {
        let t = elapsed.seconds
        let needed = vu + 1
        for segment in segments where t < segment.start + segment.length && segment.length > 0 {
            let from = max(t, segment.start)
            let s = from - segment.start
            if segment.to > segment.from {
                // Active once from + floor((to-from)·s/len) ≥ needed.
                let steps = Double(needed - segment.from)
                if steps <= 0 { return .seconds(from) }
                let at = segment.length * steps / Double(segment.to - segment.from)
                if at < segment.length { return .seconds(segment.start + max(at, s)) }
            } else if segment.to == segment.from {
                if segment.from >= needed { return .seconds(from) }
            } else {
                // Falling: active while from - floor((from-to)·s/len) ≥ needed.
                if segment.from >= needed {
                    let until = segment.length * Double(segment.from - needed + 1) / Double(segment.from - segment.to)
                    if s < until { return .seconds(from) }
                }
            }
        }
        return nil
    }
}
