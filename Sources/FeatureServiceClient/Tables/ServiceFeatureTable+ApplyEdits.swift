import FeatureModel

/// One pending edit taken for an applyEdits, with the key it is pending under.
struct PendingEditSnapshot: Sendable, Hashable {
    var key: String
    var edit: PendingEdit
}

extension ServiceFeatureTable {
    /// Applies the pending edits at layer level (`POST …/<id>/applyEdits`, and `…/<relationship table>/applyEdits`
    /// for many-to-many links), in batches of `batchSize` edits, at most `concurrency` batches at a time.
    ///
    /// Batches run in a task group whose children each send one batch and return its outcome; this method folds
    /// them. Each batch goes through ``FeatureLayerClient/applyEdits(_:options:retry:globalIdField:)``, so the
    /// exactly-once rule holds for retries (adds carry client GlobalIDs and `useGlobalIds=true` whenever the layer
    /// supports it). Batches are independent: one failing does not undo another; for one atomic call across tables
    /// use ``FeatureService/applyEdits(tables:rollbackOnFailure:)``.
    ///
    /// Applied edits leave ``pendingEdits``; failed ones (and those of unknown outcome) stay with their error in
    /// ``PendingEdit/lastError``. An edit changed locally while the call ran stays pending as changed.
    /// - Parameters:
    ///   - batchSize: Edits per request, at least 1. Default 500.
    ///   - concurrency: Requests in flight at most, at least 1. Default 4.
    ///   - retry: When to retry a batch. Default ``RetryPolicy/none`` (one attempt).
    ///   - rollbackOnFailure: Whether one failed edit undoes its whole batch. Default false: per-edit results.
    /// - Returns: One result per edit, batch by batch in pending order (adds, updates, then deletes of each batch).
    /// - Throws: ``FeatureServiceError`` when another applyEdits of this table is running or a layer's metadata
    ///   cannot be read (a batch's failure is reported in its results, not thrown); `CancellationError` — the edits
    ///   then stay pending, and some may have been applied.
    public func applyEdits(
        batchSize: Int = 500, concurrency: Int = 4, retry: RetryPolicy = .none, rollbackOnFailure: Bool = false
    ) async throws -> [FeatureEditResult] {
        let entries = try beginApply()
        do {
            var batches: [LayerEditBatch] = []
            for tableId in Self.tableOrder(of: entries) {
                let layer = tableId == self.tableId ? info : try await service.layerInfo(id: tableId)
                let client = tableId == self.tableId ? self.client : service.layer(id: tableId)
                batches += LayerEditBatch.plan(
                    entries.filter { $0.edit.tableId == tableId }, layer: layer, client: client, batchSize: max(1, batchSize),
                    rollbackOnFailure: rollbackOnFailure, firstIndex: batches.count)
            }
            let results = try await Self.run(batches, concurrency: max(1, concurrency), retry: retry)
            finishApply(results)
            return results.map(\.result)
        } catch {
            applyState = .idle
            throw error
        }
    }

    /// Takes every pending edit for an applyEdits and marks the table as applying.
    /// - Throws: ``FeatureServiceError`` when an applyEdits of this table is already running.
    func beginApply() throws -> [PendingEditSnapshot] {
        guard case .idle = applyState else {
            throw FeatureServiceError.invalidRequest(
                "an applyEdits of this table is already running; wait for it before applying again", operation: "applyEdits", url: client.url)
        }
        applyState = .applying
        return pending.entries.map { PendingEditSnapshot(key: $0.key, edit: $0.edit) }
    }

    /// Settles the edits of an applyEdits: applied ones leave the pending edits, the others keep their error.
    func finishApply(_ results: [(snapshot: PendingEditSnapshot, result: FeatureEditResult)]) {
        for (snapshot, result) in results {
            if result.isApplied {
                pending.settle(snapshot.key, applied: snapshot.edit)
                if pending[snapshot.key] == nil { relatedOrigins[snapshot.key] = nil }
            } else {
                let error = result.error ?? EditError(code: 0, description: "the outcome of the edit is unknown")
                pending.fail(snapshot.key, edit: snapshot.edit, error: error)
            }
        }
        applyState = .idle
    }

    /// Ends an applyEdits that sent nothing.
    func cancelApply() {
        applyState = .idle
    }

    /// The table ids of `entries`, in the order of first appearance.
    static func tableOrder(of entries: [PendingEditSnapshot]) -> [Int] {
        var order: [Int] = []
        for entry in entries where !order.contains(entry.edit.tableId) { order.append(entry.edit.tableId) }
        return order
    }

    /// What one child task reports.
    private enum BatchOutcome: Sendable {
        case applied(index: Int, ApplyEditsOutcome)
        case failed(index: Int, FeatureServiceError)
    }

    /// Sends `batches`, at most `concurrency` at a time, and folds their outcomes into one result per edit in batch
    /// order.
    private static func run(
        _ batches: [LayerEditBatch], concurrency: Int, retry: RetryPolicy
    ) async throws -> [(snapshot: PendingEditSnapshot, result: FeatureEditResult)] {
        let folded = try await withThrowingTaskGroup(of: BatchOutcome.self, returning: [[(PendingEditSnapshot, FeatureEditResult)]].self) { group in
            var results = Array(repeating: [(PendingEditSnapshot, FeatureEditResult)](), count: batches.count)
            var next = 0
            func start(_ batch: LayerEditBatch, in group: inout ThrowingTaskGroup<BatchOutcome, any Error>) {
                group.addTask {
                    do {
                        return .applied(index: batch.index, try await batch.send(retry: retry))
                    } catch let error as FeatureServiceError {
                        return .failed(index: batch.index, error)
                    }
                }
            }
            while next < min(concurrency, batches.count) {
                start(batches[next], in: &group)
                next += 1
            }
            while let outcome = try await group.next() {
                switch outcome {
                case .applied(let index, let applied): results[index] = batches[index].results(of: applied)
                case .failed(let index, let error): results[index] = batches[index].results(of: error)
                }
                if next < batches.count {
                    start(batches[next], in: &group)
                    next += 1
                }
            }
            return results
        }
        return folded.flatMap { $0 }.map { (snapshot: $0.0, result: $0.1) }
    }
}
