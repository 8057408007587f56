import FeatureModel

/// The most features one query answers, by `resultType` (ArcGIS' Query (Feature Service/Layer)):
/// `maxRecordCount` when none is given (or `none`), `standardMaxRecordCount` for `standard` (tables and lists a
/// client pages through) and `tileMaxRecordCount` for `tile` (one map tile, as the ArcGIS Maps SDK for JavaScript
/// asks), each multiplied by `maxRecordCountFactor` (1…5).
struct RecordLimits: Sendable, Hashable {
    /// `resultType`.
    enum ResultType: String, Sendable, Hashable, CaseIterable {
        case none
        case standard
        case tile
    }

    /// The cap without `resultType`. Default 2000.
    var maxRecordCount: Int
    /// The cap with `resultType=standard`. Default 32,000, as ArcGIS Online's hosted layers.
    var standardMaxRecordCount: Int
    /// The cap with `resultType=tile`. Default 8,000, as ArcGIS Online's hosted layers.
    var tileMaxRecordCount: Int

    /// The largest `maxRecordCountFactor` a query may give.
    static let maximumFactor = 5

    init(maxRecordCount: Int = 2000, standardMaxRecordCount: Int = 32_000, tileMaxRecordCount: Int = 8_000) {
        self.maxRecordCount = maxRecordCount
        self.standardMaxRecordCount = standardMaxRecordCount
        self.tileMaxRecordCount = tileMaxRecordCount
    }

    /// These limits with `maxRecordCount` lowered to `cap` when a dataset sets a smaller one.
    func lowering(maxRecordCountTo cap: Int?) -> RecordLimits {
        var limits = self
        if let cap { limits.maxRecordCount = min(maxRecordCount, cap) }
        return limits
    }

    /// The cap for `resultType`, times `factor`.
    func cap(_ resultType: ResultType, factor: Int = 1) -> Int {
        let base: Int
        switch resultType {
        case .none: base = maxRecordCount
        case .standard: base = standardMaxRecordCount
        case .tile: base = tileMaxRecordCount
        }
        return base.multipliedReportingOverflow(by: factor).overflow ? Int.max : base * factor
    }

    /// `resultType` (default `none`) and `maxRecordCountFactor` (default 1) of a query.
    /// - Throws: ``ServiceError`` (400) naming the parameter and what it accepts.
    static func read(_ parameters: RequestParameters) throws(ServiceError) -> (ResultType, factor: Int) {
        var resultType = ResultType.none
        if let text = parameters["resultType"]?.trimmed, !text.isEmpty {
            guard let known = ResultType.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) else {
                throw ServiceError.invalidParameter("resultType", reason: "must be none, standard or tile")
            }
            resultType = known
        }
        var factor = 1
        if let text = parameters["maxRecordCountFactor"]?.trimmed, !text.isEmpty {
            guard let number = Int(text), (1...maximumFactor).contains(number) else {
                throw ServiceError.invalidParameter("maxRecordCountFactor", reason: "must be a whole number 1…\(maximumFactor)")
            }
            factor = number
        }
        _ = try parameters.bool("cacheHint", default: false)
        return (resultType, factor)
    }
}
