import Dispatch
import FFmpegBridge
import Foundation
import OAVFLocking
import PlaybackEngine

/// Mediates an asset's requests for resources the player cannot load itself, as Apple's class: an
/// ``AVURLAsset``'s ``AVURLAsset/resourceLoader`` hands them to its delegate, which supplies the bytes (a caching
/// layer giving the asset `cache-https://host/movie.mp4`, say).
///
/// The delegate is consulted for an asset whose URL has a scheme other than `file`, `http` and `https`. The first
/// request of each opening of the resource (the asset's loading, then each item that plays it) asks for its content
/// information and its first two bytes; then data requests follow, one at a time, for the byte ranges the demuxer
/// reads, each from where it reads to the end of the resource: a read elsewhere (a seek, an index at the end of the
/// file) cancels the request in flight and makes a new one at the new offset. Delegate methods are called on
/// ``delegateQueue``.
///
/// A request declined (`resourceLoader(_:shouldWaitForLoadingOfRequestedResource:)` returns false), finished with an
/// error, or made when there is no delegate makes the asset's loading, or the item, fail with an
/// `AVFoundationErrorDomain` error that says which. A delegate that never answers leaves the asset loading (and the
/// item's status unknown) until the app gives up: replacing the item, releasing the player or cancelling the asset's
/// loading cancels the request in flight at once and never waits for the delegate; a seek while the demuxer waits
/// for a request's bytes is performed at once (the wait gives the demux thread back).
///
/// Differs from Apple: HTTP Live Streaming through a resource loader (playlists, keys or segments with a custom
/// scheme) is not supported: such an item fails with `AVError.Code.formatUnsupported`. Without a delegate, a scheme
/// that libavformat reads itself (`rtmp:`, `rtsp:` …) is opened by libavformat, as before. There are no FairPlay
/// Streaming requests (`preloadsEligibleContentKeys` and the content-key and authentication-challenge delegate
/// methods are absent).
///
/// Thread-safe.
open class AVAssetResourceLoader: NSObject, @unchecked Sendable {
    private struct Delegation {
        weak var delegate: (any AVAssetResourceLoaderDelegate)?
        var queue: DispatchQueue?
    }
    /// Set by the app (any thread), read by the readers making requests. Not an engine command: an asset belongs to
    /// no player.
    private let delegation = Locked(Delegation())
    /// The last failure a reader of the asset's resource reported, for the asset's or the item's error.
    private let lastFailure = Locked<AVError?>(nil)

    override init() { super.init() }

    /// Sets the delegate (held weakly) and the queue its methods are called on (held strongly), as Apple's method.
    /// Traps (Apple raises) when `delegate` is not nil and `delegateQueue` is. Requests made before are not moved to
    /// the new delegate.
    open func setDelegate(_ delegate: (any AVAssetResourceLoaderDelegate)?, queue delegateQueue: DispatchQueue?) {
        if delegate != nil && delegateQueue == nil {
            apiViolation("A delegate needs a delegate queue.")
        }
        delegation.withLock {
            $0.delegate = delegate
            $0.queue = delegateQueue
        }
    }

    /// The delegate, as set with ``setDelegate(_:queue:)`` (nil once it was released).
    open var delegate: (any AVAssetResourceLoaderDelegate)? { delegation.withLock { $0.delegate } }

    /// The queue the delegate's methods are called on.
    open var delegateQueue: DispatchQueue? { delegation.withLock { $0.queue } }

    // MARK: Requests

    /// Offers `request` to the delegate on its queue; finishes it with a failure when there is no delegate or the
    /// delegate declines. Any thread.
    func send(_ request: AVAssetResourceLoadingRequest) {
        let (delegate, queue) = delegation.withLock { ($0.delegate, $0.queue) }
        guard let delegate, let queue else {
            request.channel.finish(request, failure: .noDelegate)
            return
        }
        let call = UncheckedResourceLoaderCall(delegate: delegate, loader: self, request: request)
        queue.async {
            guard call.request.channel.offer(call.request) else { return }
            if !call.delegate.resourceLoader(call.loader, shouldWaitForLoadingOfRequestedResource: call.request) {
                call.request.channel.finish(call.request, failure: .declined)
            }
        }
    }

    /// Tells the delegate, on its queue, that `request` was cancelled (once per request: the channel's cancellation
    /// happens once). Any thread holding no lock of the request.
    func tellDelegateCancelled(_ request: AVAssetResourceLoadingRequest) {
        let (delegate, queue) = delegation.withLock { ($0.delegate, $0.queue) }
        guard let delegate, let queue else { return }
        let call = UncheckedResourceLoaderCall(delegate: delegate, loader: self, request: request)
        queue.async { call.delegate.resourceLoader(call.loader, didCancel: call.request) }
    }

    /// Records `failure` as the reason a reader of the resource stopped.
    func record(_ failure: AVError) {
        lastFailure.withLock { $0 = failure }
    }

    /// The error to report for `error` when a reader of this loader caused it (its text starts with
    /// ``ResourceLoaderReader/failurePrefix``), else nil.
    func failure(causing error: any Error) -> AVError? {
        guard let failure = error as? any MediaFailure,
            failure.function.hasPrefix(ResourceLoaderReader.failurePrefix)
        else { return nil }
        return lastFailure.withLock { $0 }
    }
}

extension AVAssetResourceLoader: CustomInputProvider {
    /// The schemes the player loads itself.
    static let ownSchemes: Set<String> = ["file", "http", "https"]

    /// A scheme other than file, http and https: the delegate's (when there is none, a scheme no libavformat
    /// protocol reads, which then fails saying there is no delegate).
    package func reads(_ location: String) -> Bool {
        guard let url = URL(string: location), let scheme = url.scheme?.lowercased(), !url.isFileURL,
            !Self.ownSchemes.contains(scheme)
        else { return false }
        return delegate != nil || FormatContext.protocolName(for: location) == nil
    }

    package func makeReader(
        location: String, cancellation: Cancellation, wake: CustomInputWake
    ) -> any CustomInputReader {
        ResourceLoaderReader(
            loader: self, url: URL(string: location) ?? URL(fileURLWithPath: location), cancellation: cancellation,
            wake: wake)
    }
}

/// The methods an ``AVAssetResourceLoader``'s delegate implements, as Apple's protocol. Called on the loader's
/// delegate queue.
///
/// Differs from Apple: the methods are `@objc optional` there; here a protocol extension gives defaults (decline,
/// do nothing). It refines `AnyObject` (Apple's refines `NSObjectProtocol`), so `NSObject` subclasses and plain
/// Swift classes alike adopt it. The renewal and authentication-challenge methods are absent: nothing here renews resources or meets
/// authentication challenges (no FairPlay, and the delegate does its own networking).
public protocol AVAssetResourceLoaderDelegate: AnyObject {
    /// Whether the delegate will load `loadingRequest` (then it answers it later, on any thread): false makes the
    /// resource fail to load. Default: false.
    func resourceLoader(
        _ resourceLoader: AVAssetResourceLoader,
        shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest
    ) -> Bool

    /// `loadingRequest` is no longer needed (its `isCancelled` is true): stop loading it. Called once per request
    /// cancelled, only for requests the delegate was asked about. Default: nothing.
    func resourceLoader(
        _ resourceLoader: AVAssetResourceLoader, didCancel loadingRequest: AVAssetResourceLoadingRequest)
}

extension AVAssetResourceLoaderDelegate {
    /// Declines: the resource fails to load.
    public func resourceLoader(
        _ resourceLoader: AVAssetResourceLoader,
        shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest
    ) -> Bool { false }

    /// Does nothing.
    public func resourceLoader(
        _ resourceLoader: AVAssetResourceLoader, didCancel loadingRequest: AVAssetResourceLoadingRequest
    ) {}
}

/// A delegate call handed to the delegate queue: the delegate is used only there, as the API contract says.
private struct UncheckedResourceLoaderCall: @unchecked Sendable {
    let delegate: any AVAssetResourceLoaderDelegate
    let loader: AVAssetResourceLoader
    let request: AVAssetResourceLoadingRequest
}
