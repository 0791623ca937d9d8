import AVFoundation
import Foundation
import OAVFLocking

/// A resource loader delegate as a caching library writes one: it serves a file's bytes from memory, answering each
/// request on its own serial queue, the data in pieces (each piece a block of its own on the queue), and records
/// what it was asked and told.
final class MemoryResourceDelegate: NSObject, AVAssetResourceLoaderDelegate, @unchecked Sendable {
    enum Behaviour {
        /// Answers with the bytes.
        case serve
        /// `shouldWaitForLoadingOfRequestedResource` returns false.
        case decline
        /// Accepts, then finishes with this error.
        case fail(NSError)
        /// Accepts and never answers.
        case silent
    }

    /// One request as the delegate saw it when it was offered.
    struct Seen: Equatable {
        var offset: Int64
        var length: Int
        var toEnd: Bool
        var asksForContentInformation: Bool
        var range: String?
    }

    let bytes: Data
    let behaviour: Behaviour
    let queue = DispatchQueue(label: "MemoryResourceDelegate")
    /// Bytes per `respond(with:)`.
    let pieceSize = 16 * 1024
    /// Requests starting before this offset get their bytes only up to it and stay in flight (nil: served whole).
    let holdFrom: Int64?
    /// Whether a content-information request is finished at once, without its bytes (as some caches answer it).
    let answersInformationWithoutData: Bool

    private struct Log {
        var offered: [AVAssetResourceLoadingRequest] = []
        var seen: [Seen] = []
        var cancelled: [ObjectIdentifier] = []
        var calledOffQueue = false
    }
    private let log = Locked(Log())

    init(
        file: URL, behaviour: Behaviour = .serve, holdFrom: Int64? = nil, answersInformationWithoutData: Bool = false
    ) throws {
        bytes = try Data(contentsOf: file)
        self.behaviour = behaviour
        self.holdFrom = holdFrom
        self.answersInformationWithoutData = answersInformationWithoutData
    }

    /// Every request offered, in order.
    var offered: [AVAssetResourceLoadingRequest] { log.withLock { $0.offered } }
    var seen: [Seen] { log.withLock { $0.seen } }
    /// How many times `didCancel` was called for `request`.
    func cancellations(of request: AVAssetResourceLoadingRequest) -> Int {
        log.withLock { $0.cancelled.filter { $0 == ObjectIdentifier(request) }.count }
    }
    var cancellationCount: Int { log.withLock { $0.cancelled.count } }
    /// Whether a delegate method ran off the delegate queue.
    var calledOffQueue: Bool { log.withLock { $0.calledOffQueue } }

    func resourceLoader(
        _ resourceLoader: AVAssetResourceLoader,
        shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest
    ) -> Bool {
        let onQueue = resourceLoader.delegateQueue === queue && isOnQueue()
        let data = loadingRequest.dataRequest
        log.withLock {
            $0.calledOffQueue = $0.calledOffQueue || !onQueue
            $0.offered.append(loadingRequest)
            $0.seen.append(
                Seen(
                    offset: data?.requestedOffset ?? -1, length: data?.requestedLength ?? 0,
                    toEnd: data?.requestsAllDataToEndOfResource ?? false,
                    asksForContentInformation: loadingRequest.contentInformationRequest != nil,
                    range: loadingRequest.request.value(forHTTPHeaderField: "Range")))
        }
        switch behaviour {
        case .decline:
            return false
        case .silent:
            return true
        case .fail(let error):
            queue.async { loadingRequest.finishLoading(with: error) }
            return true
        case .serve:
            if let info = loadingRequest.contentInformationRequest {
                info.contentType = "public.mpeg-4"
                info.contentLength = Int64(bytes.count)
                info.isByteRangeAccessSupported = true
                if answersInformationWithoutData {
                    queue.async { loadingRequest.finishLoading() }
                    return true
                }
            }
            serve(loadingRequest, from: Int(data?.requestedOffset ?? 0))
            return true
        }
    }

    func resourceLoader(
        _ resourceLoader: AVAssetResourceLoader, didCancel loadingRequest: AVAssetResourceLoadingRequest
    ) {
        let onQueue = isOnQueue()
        log.withLock {
            $0.calledOffQueue = $0.calledOffQueue || !onQueue
            $0.cancelled.append(ObjectIdentifier(loadingRequest))
        }
    }

    /// Gives the next piece from `offset` on the queue, then schedules the one after; finishes at the end of the
    /// range (unless held), stops when the request is cancelled.
    private func serve(_ request: AVAssetResourceLoadingRequest, from offset: Int) {
        queue.async { [self] in
            guard !request.isCancelled, let data = request.dataRequest else { return }
            let requestedEnd =
                data.requestsAllDataToEndOfResource
                ? bytes.count : min(bytes.count, Int(data.requestedOffset) + data.requestedLength)
            var limit = requestedEnd
            if let holdFrom, data.requestedOffset < holdFrom { limit = min(limit, Int(holdFrom)) }
            guard offset < limit else {
                if limit == requestedEnd { request.finishLoading() }
                return
            }
            let end = min(limit, offset + pieceSize)
            data.respond(with: bytes.subdata(in: offset..<end))
            serve(request, from: end)
        }
    }

    private let queueKey = DispatchSpecificKey<Bool>()

    /// Marks the queue so that a call can tell it runs there. Call before use.
    func markQueue() {
        queue.setSpecific(key: queueKey, value: true)
    }

    private func isOnQueue() -> Bool { DispatchQueue.getSpecific(key: queueKey) == true }
}

extension AVURLAsset {
    /// An asset for `file` under a custom scheme (`cache-file:///…`), whose bytes `delegate` supplies.
    static func served(_ file: URL, by delegate: MemoryResourceDelegate?) -> AVURLAsset {
        var components = URLComponents(url: file, resolvingAgainstBaseURL: false)!
        components.scheme = "cache-file"
        let asset = AVURLAsset(url: components.url!)
        if let delegate {
            delegate.markQueue()
            asset.resourceLoader.setDelegate(delegate, queue: delegate.queue)
        }
        return asset
    }
}
