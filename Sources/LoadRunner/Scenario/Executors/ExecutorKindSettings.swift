import Yams

/// What each executor owns: its keys (declared once, see ``ScenarioKey``), how it reads them, its cross-field
/// checks, its schema rules, and what the runner needs of it (its schedule, its share of an execution segment, its
/// settings for reports). One type per executor, one file each; ``ExecutorKind`` registers them.
protocol ExecutorKindSettings: Sendable, Hashable {
    /// The executor these settings belong to.
    static var kind: ExecutorKind { get }
    /// The keys the executor takes, in the order the schema lists them.
    static var keys: [any ScenarioKeyDeclaration] { get }
    /// Keys the executor cannot do without.
    static var requiredKeys: [String] { get }
    /// Schema rules beyond each key's own, as members of the executor's rules: rules on its own properties (under
    /// `properties`, beside the keys it does not take), then members such as `allOf`, `anyOf` and `errorMessage`.
    static var schemaPropertyRules: [SchemaValue.Member] { get }
    static var schemaRules: [SchemaValue.Member] { get }
    /// Why the executor lacks a key the command line sets (`--vus`, `--duration`, `--iterations`), where the reason
    /// is not obvious; empty otherwise.
    static func missingKeyHint(_ key: String) -> String

    /// Reads the executor's keys; nil when a key it cannot do without is missing or refused (and reported).
    static func read(_ input: MappingInput, _ reader: inout NodeReader) -> Self?

    /// These settings as the executor enum's case.
    var executor: ExecutorConfig { get }
    /// The most VUs the executor ever runs at once (the connections it needs).
    var maxVUs: Int { get }
    /// How long after the scenario's start new iterations may begin.
    var scheduledDuration: Duration { get }
    /// The iterations the executor plans, when it has a fixed count.
    var plannedIterations: Int? { get }
    /// Whether the executor ends when its iterations are done (rather than when its time is up).
    var endsAfterIterations: Bool { get }
    /// When its iterations start.
    var schedule: ExecutorSchedule { get }
    /// Cross-field problems in the settings (ranges of single keys are checked while reading them).
    func validate() -> [ExecutorProblem]
    /// The command line's `--vus`, `--duration` and `--iterations`, where the executor has the key.
    func applying(_ overrides: ScenarioOverrides) -> Self
    /// These settings with `value` for a swept parameter; nil when the executor has no such parameter.
    func sweeping(_ parameter: Sweep.Parameter, _ value: Int) -> Self?
    /// These settings running for `duration` (a sweep's warm-up); nil when the executor is not time-based.
    func lasting(_ duration: Duration) -> Self?
    /// The settings as the file writes them, for reports.
    var reportSettings: [String: String] { get }
    /// One line saying what the executor runs: `100 iterations × 1 adds, 8 VUs` and the like.
    func planDescription(work: String, layers: String) -> String
    /// The executor's share of the test under an execution segment of more than one part.
    func share(of segment: ExecutionTuple) -> ExecutorShare
}

extension ExecutorKindSettings {
    static var requiredKeys: [String] { [] }
    static var schemaPropertyRules: [SchemaValue.Member] { [] }
    static var schemaRules: [SchemaValue.Member] { [] }
    static func missingKeyHint(_ key: String) -> String { "" }
    var plannedIterations: Int? { nil }
    var endsAfterIterations: Bool { false }
    func validate() -> [ExecutorProblem] { [] }
    func applying(_ overrides: ScenarioOverrides) -> Self { self }
    func sweeping(_ parameter: Sweep.Parameter, _ value: Int) -> Self? { nil }
    func lasting(_ duration: Duration) -> Self? { nil }

    /// The names of the executor's keys, as its messages list them.
    static var keyNames: [String] { keys.map(\.name) }
}

/// When an executor's iterations start: VUs that loop (closed model), or arrivals on a clock (open model).
enum ExecutorSchedule: Sendable, Hashable {
    case closed(ClosedSchedule)
    case open(OpenSchedule)
}

/// An executor's share of the test under an execution segment (see ``SegmentedExecutor``).
struct ExecutorShare: Sendable {
    /// The executor with this segment's VUs and iterations.
    var executor: ExecutorConfig
    /// Numbers this segment's iterations; nil when the segment has no share of the executor's work.
    var numbering: ExecutionTuple?
    /// For executors whose VUs are numbered across segments (ramping-vus): how many VU tasks this segment runs.
    var vuTasks: Int? = nil
}

/// Executor settings written as the file writes them, for reports.
enum ExecutorText {
    static func duration(_ duration: Duration) -> String { DurationText.format(duration) }
    static func stages(_ stages: [Stage]) -> String { stages.map { "\(duration($0.duration))→\($0.target)" }.joined(separator: ", ") }
}

extension MappingInput {
    /// The value of `key`, which the executor or operation cannot do without: a missing key is reported.
    func required<Wrapped>(_ key: ScenarioKey<Wrapped?>, _ reader: inout NodeReader) -> Wrapped? {
        require(key, "missing", fix: "add `\(key.example)`", &reader)
        return read(key, &reader)
    }
}
