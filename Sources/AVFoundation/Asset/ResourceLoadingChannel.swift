import Foundation
import OAVFLocking

/// Why a loading request failed.
enum ResourceLoadingFailure {
    /// The resource loader had no delegate (or it was released) when the request was made.
    case noDelegate
    /// The delegate's `resourceLoader(_:shouldWaitForLoadingOfRequestedResource:)` returned false.
    case declined
    /// The delegate called `finishLoading(with:)`, with this error (or none).
    case delegateError(NSError?)
}

/// What one reader of a resource (``ResourceLoaderReader``) shares with the loading requests it made: the condition
/// it waits on, which guards the requests' state, and the requests still loading, which an interruption cancels.
///
/// Each call that changes a request's state takes the condition's lock, changes it, and wakes the reader
/// (`broadcast`); the reader checks the state with the lock held, so no wake-up is lost. The delegate is told of a
/// cancellation after the lock is released.
///
/// Thread-safe. Not an engine command: the app answers requests on its own threads, and the reader waiting for them
/// is the demux (or asset-loading) thread, below the engine.
final class ResourceLoadingChannel: @unchecked Sendable {
    let condition = ConditionLock()
    /// Tells the delegate of cancellations.
    let loader: AVAssetResourceLoader
    /// Whether the reader's source was interrupted: no request is made after it. Guarded by `condition`.
    private(set) var isInterrupted = false
    /// Requests neither finished nor cancelled. Guarded by `condition`.
    private var loading: [ObjectIdentifier: AVAssetResourceLoadingRequest] = [:]
    /// Whether the reader waits for a data request's bytes now, and whether it was asked to give its thread back
    /// (``wakeReader()``). Guarded by `condition`.
    var isReaderWaiting = false
    var isWakeRequested = false

    init(loader: AVAssetResourceLoader) {
        self.loader = loader
    }

    /// Counts `request` as loading until it finishes or is cancelled; false (and it is not counted) once the reader
    /// was interrupted.
    func register(_ request: AVAssetResourceLoadingRequest) -> Bool {
        condition.withLock {
            guard !isInterrupted else { return false }
            loading[ObjectIdentifier(request)] = request
            return true
        }
    }

    /// Finishes `request` (with `failure`, or whole); nothing when it already finished or was cancelled.
    func finish(_ request: AVAssetResourceLoadingRequest, failure: ResourceLoadingFailure?) {
        condition.withLock {
            guard !request.state.finished && !request.state.cancelled else { return }
            request.state.finished = true
            request.state.failure = failure
            request.dataRequest?.buffered.isClosed = true
            loading[ObjectIdentifier(request)] = nil
        }
        condition.broadcast()
    }

    /// Adds `data` to what `dataRequest` has received, unless its request finished or was cancelled.
    func deliver(_ data: Data, to dataRequest: AVAssetResourceLoadingDataRequest) {
        condition.withLock {
            guard !dataRequest.buffered.isClosed else { return }
            dataRequest.buffered.append(data)
        }
        condition.broadcast()
    }

    /// Marks `request` as offered to the delegate (about to be asked about it); false when it was cancelled before
    /// (then it is not offered at all). The delegate queue.
    func offer(_ request: AVAssetResourceLoadingRequest) -> Bool {
        condition.withLock {
            guard !request.state.cancelled else { return false }
            request.state.offered = true
            return true
        }
    }

    /// Cancels `request` when it is still loading, and tells the delegate (when it was offered). Any thread but one
    /// holding `condition`.
    func cancel(_ request: AVAssetResourceLoadingRequest) {
        let offered: Bool? = condition.withLock {
            guard !request.state.finished && !request.state.cancelled else { return nil }
            markCancelled(request)
            return request.state.offered
        }
        condition.broadcast()
        if offered == true { loader.tellDelegateCancelled(request) }
    }

    /// The reader's source was interrupted (the item replaced, the player released, the asset's loading cancelled):
    /// cancels every request still loading, wakes the reader, and makes no request afterwards. Any thread.
    func interrupt() {
        let cancelled: [AVAssetResourceLoadingRequest] = condition.withLock {
            isInterrupted = true
            let requests = Array(loading.values)
            for request in requests { markCancelled(request) }
            return requests.filter(\.state.offered)
        }
        condition.broadcast()
        for request in cancelled { loader.tellDelegateCancelled(request) }
    }

    /// Makes the reader's wait for bytes in progress, if any, give its thread back (a seek is waiting). Any thread.
    func wakeReader() {
        condition.withLock {
            if isReaderWaiting { isWakeRequested = true }
        }
        condition.broadcast()
    }

    /// Call with `condition` held.
    private func markCancelled(_ request: AVAssetResourceLoadingRequest) {
        request.state.cancelled = true
        request.dataRequest?.buffered.isClosed = true
        loading[ObjectIdentifier(request)] = nil
    }
}
