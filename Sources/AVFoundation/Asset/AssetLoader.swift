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
        var waiters: [(id: UInt64, call: @Sendable (Result<AssetDescription, AVError>) -> Void)] = []
        var nextWaiter: UInt64 = 0
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
        _ = enqueue(completion)
    }

    /// ``request(_:)``, returning the waiter's number while it waits (nil when answered at once).
    private func enqueue(_ completion: @escaping @Sendable (Result<AssetDescription, AVError>) -> Void) -> UInt64? {
        enum Action {
            case now(Result<AssetDescription, AVError>)
            case wait
            case start(Cancellation)
        }
        let (action, waiter): (Action, UInt64?) = state.withLock { s in
            s.nextWaiter += 1
            switch s.phase {
            case .loaded(let d): return (.now(.success(d)), nil)
            case .failed(let e): return (.now(.failure(e)), nil)
            case .loading:
                s.waiters.append((s.nextWaiter, completion))
                return (.wait, s.nextWaiter)
            case .idle, .cancelled:
                let cancellation = Cancellation()
                s.phase = .loading(cancellation)
                s.waiters.append((s.nextWaiter, completion))
                return (.start(cancellation), s.nextWaiter)
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
        return waiter
    }

    /// Stops waiting as waiter `id` (it is not called); when nobody else waits, a load in progress is cancelled
    /// (its I/O interrupted: a resource loader's request in flight is cancelled), to start again on the next request.
    private func abandon(_ id: UInt64) {
        let cancellation: Cancellation? = state.withLock { s in
            s.waiters.removeAll { $0.id == id }
            guard s.waiters.isEmpty, case .loading(let cancellation) = s.phase else { return nil }
            s.phase = .cancelled
            return cancellation
        }
        cancellation?.cancel()
    }

    private func finish(_ result: Result<AssetDescription, AVError>, cancellation: Cancellation) {
        let waiters: [@Sendable (Result<AssetDescription, AVError>) -> Void] = state.withLock { s in
            // A cancelled load already answered its waiters.
            let waiters = s.waiters.map(\.call)
            guard case .loading(let current) = s.phase, current === cancellation else { return [] }
            switch result {
            case .success(let d): s.phase = .loaded(d)
            case .failure(let e): s.phase = .failed(e)
            }
            s.waiters = []
            return waiters
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
                return (s.waiters.map(\.call), cancellation)
            }
        cancellation?.cancel()
        let error = AVError.media(.operationCancelled, "Loading “\(AVError.displayName(url))” was cancelled.", url: url)
        for w in waiters { w(.failure(error)) }
    }

    /// Blocks until loaded (for Apple's deprecated synchronous getters), or until `stopping` is cancelled: then this
    /// wait is abandoned (``abandon(_:)``: the load is cancelled when nobody else waits for it) and the result is
    /// `AVError.operationCancelled`.
    func wait(stopping: Cancellation? = nil) -> Result<AssetDescription, AVError> {
        let box = Locked<Result<AssetDescription, AVError>?>(nil)
        let done = ConditionLock()
        let waiter = enqueue { r in
            done.withLock { box.withLock { $0 = r } }
            done.broadcast()
        }
        stopping?.whenCancelled {
            // Taking the lock orders the wake-up after the waiter's check of the token.
            done.withLock {}
            done.broadcast()
        }
        let answered: Bool = done.withLock {
            while box.withLock({ $0 }) == nil {
                if stopping?.isCancelled == true { return false }
                done.wait()
            }
            return true
        }
        if !answered, let waiter {
            abandon(waiter)
            if let r = box.withLock({ $0 }) { return r }
            let name = AVError.displayName(url)
            return .failure(.media(.operationCancelled, "Loading “\(name)” was cancelled.", url: url))
        }
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
