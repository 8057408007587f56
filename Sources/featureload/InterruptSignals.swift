import Dispatch
import Foundation

/// Turns SIGINT and SIGTERM into task cancellation for the duration of some work.
enum InterruptSignals {
    /// Runs `work`; on SIGINT or SIGTERM cancels it and waits for it to wind down.
    ///
    /// While this runs the signals do not kill the process; they are restored afterwards.
    /// - Returns: The work's result, and whether a signal cancelled it.
    /// - Throws: Whatever `work` throws.
    static func cancellingWork<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> (T, interrupted: Bool) {
        let signals = [SIGINT, SIGTERM]
        for number in signals { signal(number, SIG_IGN) }
        defer { for number in signals { signal(number, SIG_DFL) } }
        let arrivals = AsyncStream<Int32> { continuation in
            let sources = signals.map { number in
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { continuation.yield(number) }
                source.resume()
                return source
            }
            let owner = SignalSources(sources)
            continuation.onTermination = { _ in owner.cancel() }
        }

        return try await withThrowingTaskGroup(of: InterruptEvent<T>.self) { group in
            group.addTask {
                do { return .finished(.success(try await work())) } catch { return .finished(.failure(error)) }
            }
            group.addTask {
                for await _ in arrivals { return .signal }
                return .noSignal  // the stream ended because the work finished or the command itself was cancelled
            }
            var interrupted = false
            while let event = try await group.next() {
                switch event {
                case .signal:
                    interrupted = true
                    FileHandle.standardError.write(Data("featureload: interrupted; stopping and writing what ran so far\n".utf8))
                    group.cancelAll()
                case .noSignal:
                    continue
                case .finished(let result):
                    group.cancelAll()
                    return (try result.get(), interrupted)
                }
            }
            throw CancellationError()
        }
    }
}

private enum InterruptEvent<T: Sendable>: Sendable {
    case finished(Result<T, any Error>)
    case signal
    case noSignal
}

/// Keeps the signal sources alive until the stream ends; dispatch sources are thread-safe to cancel.
private final class SignalSources: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    init(_ sources: [any DispatchSourceSignal]) { self.sources = sources }
    func cancel() { for source in sources { source.cancel() } }
}
