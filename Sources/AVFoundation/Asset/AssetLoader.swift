import Dispatch
import Foundation
import OAVFLocking
import PlaybackEngine

/// Loads an asset's description once, off the caller's thread, and hands it to every waiter.
///
/// State machine: `idle → loading → loaded | failed`, and `loading → cancelled` on
/// `cancel()`. A cancelled loader starts again on the next request (Apple lets you reload after
/// `cancelLoading()`). All state is guarded by `state`; callbacks run outside the lock.
final class AssetLoader: Sendable {
    enum Phase {
        case idle
        case loading(Cancellation)
        case loaded(AssetDescription)
        case failed(AVError)
        case cancelled
    }

    private struct State {
        var phase: Phase = .idle
        var waiters: [@Sendable (Result<AssetDescription, AVError>) -> Void] = []
    }

    let url: URL
    let options: [String: any Sendable]
    /// What the loader has loaded and who waits for it: the loader's queue writes, any thread asking for a value reads.
    /// Not an engine command: an asset belongs to no player.
    private let state = Locked(State())

    /// Loads run here: a concurrent queue, so assets load in parallel and never on the caller's thread. (A barrier
    /// block on it waits for the loads in progress to finish: tests use one to see a cancelled load end.)
    static let queue = DispatchQueue(label: "OpenAVFoundation.AssetLoader", attributes: .concurrent)

    init(url: URL, options: [String: any Sendable]) {
        self.url = url
        self.options = options
    }

    deinit {
        // Interrupts a probe in progress (the queued block holds only a weak reference).
        if case .loading(let cancellation) = state.withLock({ $0.phase }) { cancellation.cancel() }
    }

    var phase: Phase { state.withLock { $0.phase } }

    /// The description if already loaded.
    var loaded: AssetDescription? {
        if case .loaded(let d) = phase { return d }
        return nil
    }

    /// Calls `completion` with the result: at once (synchronously) when already known, else later
    /// on a background queue. Starts loading when idle or cancelled.
    func request(_ completion: @escaping @Sendable (Result<AssetDescription, AVError>) -> Void) {
        enum Action {
            case now(Result<AssetDescription, AVError>)
            case wait
            case start(Cancellation)
        }
        let action: Action = state.withLock { s in
            switch s.phase {
            case .loaded(let d): return .now(.success(d))
            case .failed(let e): return .now(.failure(e))
            case .loading:
                s.waiters.append(completion)
                return .wait
            case .idle, .cancelled:
                let cancellation = Cancellation()
                s.phase = .loading(cancellation)
                s.waiters.append(completion)
                return .start(cancellation)
            }
        }
        switch action {
        case .now(let r): completion(r)
        case .wait: break
        case .start(let cancellation):
            let url = self.url
            let options = self.options
            Self.queue.async { [weak self] in
                // An asset released before its turn (nobody can read its values) is not probed.
                guard let self, !cancellation.isCancelled else { return }
                let result = Result { () throws(AVError) -> AssetDescription in
                    try AssetDescription.load(url: url, options: options, cancellation: cancellation)
                }
                self.finish(result, cancellation: cancellation)
            }
        }
    }

    private func finish(_ result: Result<AssetDescription, AVError>, cancellation: Cancellation) {
        let waiters: [@Sendable (Result<AssetDescription, AVError>) -> Void] = state.withLock { s in
            // A cancelled load already answered its waiters.
            guard case .loading(let current) = s.phase, current === cancellation else { return [] }
            switch result {
            case .success(let d): s.phase = .loaded(d)
            case .failure(let e): s.phase = .failed(e)
            }
            defer { s.waiters = [] }
            return s.waiters
        }
        for w in waiters { w(result) }
    }

    /// Cancels a load in progress: waiters get `AVError.operationCancelled` at once.
    func cancel() {
        let (waiters, cancellation): ([@Sendable (Result<AssetDescription, AVError>) -> Void], Cancellation?) =
            state.withLock { s in
                guard case .loading(let cancellation) = s.phase else { return ([], nil) }
                s.phase = .cancelled
                defer { s.waiters = [] }
                return (s.waiters, cancellation)
            }
        cancellation?.cancel()
        let error = AVError.media(.operationCancelled, "Loading “\(AVError.displayName(url))” was cancelled.", url: url)
        for w in waiters { w(.failure(error)) }
    }

    /// Blocks until loaded (for Apple's deprecated synchronous getters).
    func wait() -> Result<AssetDescription, AVError> {
        let box = Locked<Result<AssetDescription, AVError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        request { r in
            box.withLock { $0 = r }
            done.signal()
        }
        done.wait()
        return box.withLock { $0! }
    }

    func value() async throws(AVError) -> AssetDescription {
        let result = await withCheckedContinuation {
            (c: CheckedContinuation<Result<AssetDescription, AVError>, Never>) in
            request { c.resume(returning: $0) }
        }
        return try result.get()
    }
}
