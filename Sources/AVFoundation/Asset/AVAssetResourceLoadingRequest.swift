import Foundation
import OAVFLocking

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request for some of an asset's resource that the player cannot load itself, handed to the resource loader's
/// delegate (`resourceLoader(_:shouldWaitForLoadingOfRequestedResource:)`), as Apple's class.
///
/// The player makes them; apps answer them: fill in ``contentInformationRequest`` when it is not nil, give bytes to
/// ``dataRequest`` (`respond(with:)`), then call ``finishLoading()`` — or ``finishLoading(with:)`` when the resource
/// can't be loaded (the asset's loading, or the item, then fails with an `AVFoundationErrorDomain` error whose
/// underlying error is the one given). A request the player no longer needs (a seek elsewhere, the item replaced, the
/// player released) is cancelled: ``isCancelled`` becomes true and the delegate's
/// `resourceLoader(_:didCancel:)` is called once; what is given to it afterwards is ignored.
///
/// State machine: `loading → finished` (``finishLoading()`` or ``finishLoading(with:)``, or the delegate declined)
/// or `loading → cancelled`; both final.
///
/// Differs from Apple: the content-key methods (`streamingContentKeyRequestData…`, `persistentContentKey…`) and
/// `requestor` are absent (FairPlay Streaming does not exist here); ``response`` and ``redirect`` are kept as given
/// but not acted on (the bytes given are the resource's; a redirect is not followed).
///
/// Thread-safe: the app may answer from any thread; its state is guarded by the lock of the reader that made it.
open class AVAssetResourceLoadingRequest: NSObject, @unchecked Sendable {
    /// The request for the resource: the asset's URL, with a `Range: bytes=first-last` header field naming the bytes
    /// of ``dataRequest`` (`bytes=first-` when they run to the end of the resource), as Apple sends.
    public let request: URLRequest

    /// What the player needs to know about the resource (its length, whether ranges of it can be read), or nil
    /// when it knows already. Fill it in before ``finishLoading()``.
    public let contentInformationRequest: AVAssetResourceLoadingContentInformationRequest?

    /// The range of bytes the player asks for, or nil when it asks for none.
    public let dataRequest: AVAssetResourceLoadingDataRequest?

    /// Where this request's answer goes; its lock guards ``state``.
    let channel: ResourceLoadingChannel

    /// What became of the request. Guarded by `channel.condition`.
    var state = State()

    struct State {
        var finished = false
        var cancelled = false
        /// Why it failed, when it did (finished with an error, declined, no delegate).
        var failure: ResourceLoadingFailure?
        /// Whether the delegate was asked about it (so that a cancellation is told to the delegate only then).
        var offered = false
        var response: URLResponse?
        var redirect: URLRequest?
    }

    init(
        url: URL, offset: Int64, length: Int, toEnd: Bool, asksForContentInformation: Bool,
        channel: ResourceLoadingChannel
    ) {
        var request = URLRequest(url: url)
        let last = length == Int.max ? nil : offset + Int64(length) - 1
        request.setValue("bytes=\(offset)-\(last.map(String.init) ?? "")", forHTTPHeaderField: "Range")
        self.request = request
        self.channel = channel
        contentInformationRequest = asksForContentInformation ? AVAssetResourceLoadingContentInformationRequest() : nil
        dataRequest = AVAssetResourceLoadingDataRequest(offset: offset, length: length, toEnd: toEnd, channel: channel)
        super.init()
    }

    /// Whether loading finished (``finishLoading()`` or ``finishLoading(with:)`` was called, or the delegate declined).
    open var isFinished: Bool { channel.condition.withLock { state.finished } }

    /// Whether the player no longer needs the request (the delegate was told with `resourceLoader(_:didCancel:)`):
    /// stop loading it.
    open var isCancelled: Bool { channel.condition.withLock { state.cancelled } }

    /// The URL response of the resource, if the delegate sets one. Kept, not acted on.
    open var response: URLResponse? {
        get { channel.condition.withLock { state.response } }
        set { channel.condition.withLock { state.response = newValue } }
    }

    /// A redirect of the request, if the delegate sets one. Kept, not followed (differs from Apple, which issues the
    /// redirected request).
    open var redirect: URLRequest? {
        get { channel.condition.withLock { state.redirect } }
        set { channel.condition.withLock { state.redirect = newValue } }
    }

    /// Finishes loading: the bytes given to ``dataRequest`` are all the resource has of its range (fewer than asked
    /// for means the resource ends there), and ``contentInformationRequest`` is filled in. Calling it again, or after
    /// the request was cancelled, does nothing.
    ///
    /// Traps (Apple raises) when ``AVAssetResourceLoadingContentInformationRequest/allowedContentTypes`` is not nil
    /// and the `contentType` given is not among them.
    open func finishLoading() {
        if let info = contentInformationRequest, let allowed = info.allowedContentTypes, let type = info.contentType,
            !allowed.contains(type)
        {
            apiViolation("The content type \(type) is not one of the allowed content types \(allowed).")
        }
        channel.finish(self, failure: nil)
    }

    /// Finishes loading with a failure: the asset's loading, or the item, fails with an `AVFoundationErrorDomain`
    /// error (`AVError.Code.failedToLoadMediaData`) whose underlying error is `error` (also when `error` is nil: it
    /// failed all the same). Calling it after the request finished or was cancelled does nothing.
    open func finishLoading(with error: (any Error)?) {
        channel.finish(self, failure: .delegateError(error.map { $0 as NSError }))
    }
}

/// What the player needs to know about a resource, as Apple's class: the delegate fills it in before finishing the
/// request it belongs to.
///
/// Differs from Apple: ``contentType`` is not needed (libavformat recognises the format from the bytes), and
/// ``isEntireLengthAvailableOnDemand`` changes nothing (the player reads ahead as for any network input).
///
/// Thread-safe.
open class AVAssetResourceLoadingContentInformationRequest: NSObject, @unchecked Sendable {
    private struct Fields {
        var contentType: String?
        var contentLength: Int64 = 0
        var isByteRangeAccessSupported = false
        var isEntireLengthAvailableOnDemand = false
    }
    /// Set by the delegate (any thread), read by the player after the request finished.
    private let fields = Locked(Fields())

    override init() { super.init() }

    /// The type of the resource's data (a UTI such as `public.mpeg-4`), or nil.
    open var contentType: String? {
        get { fields.withLock { $0.contentType } }
        set { fields.withLock { $0.contentType = newValue } }
    }

    /// The types ``contentType`` must be one of, or nil for any: always nil here (any media libavformat reads).
    open var allowedContentTypes: [String]? { nil }

    /// The resource's length in bytes (0: unknown; the resource is then read to where its bytes end).
    open var contentLength: Int64 {
        get { fields.withLock { $0.contentLength } }
        set { fields.withLock { $0.contentLength = newValue } }
    }

    /// Whether any range of the resource can be asked for (default false). False: the resource is read from its
    /// start to its end only, so media whose index is at its end, and seeks, fail.
    open var isByteRangeAccessSupported: Bool {
        get { fields.withLock { $0.isByteRangeAccessSupported } }
        set { fields.withLock { $0.isByteRangeAccessSupported = newValue } }
    }

    /// Whether all of the resource's bytes are available at once (cached, or local). Kept; it changes nothing here.
    open var isEntireLengthAvailableOnDemand: Bool {
        get { fields.withLock { $0.isEntireLengthAvailableOnDemand } }
        set { fields.withLock { $0.isEntireLengthAvailableOnDemand = newValue } }
    }
}

/// A range of a resource's bytes the player asks for, as Apple's class: the delegate gives them with
/// ``respond(with:)``, in order, from ``currentOffset`` on.
///
/// Thread-safe: its state is guarded by the lock of the reader that made it.
open class AVAssetResourceLoadingDataRequest: NSObject, @unchecked Sendable {
    /// The position in the resource of the first byte asked for.
    public let requestedOffset: Int64

    /// How many bytes are asked for (when ``requestsAllDataToEndOfResource``, the rest of the resource as its
    /// length is known, `Int.max` when it is not: give bytes until the resource ends).
    public let requestedLength: Int

    /// Whether all of the resource from ``requestedOffset`` to its end is asked for: give bytes until it ends, then
    /// finish, unless the request is cancelled first.
    public let requestsAllDataToEndOfResource: Bool

    private let channel: ResourceLoadingChannel

    /// Bytes given and not yet read by the player, and the offset after the last byte given. Guarded by
    /// `channel.condition`.
    var buffered = ReceivedBytes()

    init(offset: Int64, length: Int, toEnd: Bool, channel: ResourceLoadingChannel) {
        requestedOffset = offset
        requestedLength = length
        requestsAllDataToEndOfResource = toEnd
        self.channel = channel
        buffered.end = offset
        super.init()
    }

    /// The position in the resource of the next byte to give: bytes before it have been given.
    open var currentOffset: Int64 { channel.condition.withLock { buffered.end } }

    /// Gives the next bytes of the range (any thread; call again with the bytes after them). Ignored once the
    /// request finished or was cancelled.
    open func respond(with data: Data) {
        guard !data.isEmpty else { return }
        channel.deliver(data, to: self)
    }
}

/// Bytes given to a data request and not yet read (a list of pieces, read from the front).
struct ReceivedBytes {
    private var pieces: [Data] = []
    /// Bytes of the first piece already read.
    private var readInFirst = 0
    /// Bytes given and not read.
    private(set) var count = 0
    /// The resource offset after the last byte given.
    var end: Int64 = 0
    /// Whether the request finished or was cancelled: bytes given afterwards are ignored.
    var isClosed = false

    mutating func append(_ data: Data) {
        pieces.append(data)
        count += data.count
        end += Int64(data.count)
    }

    /// Copies at most `buffer.count` bytes into `buffer` (nil: drops them) and returns how many.
    mutating func take(_ wanted: Int, into buffer: UnsafeMutableRawBufferPointer?) -> Int {
        var taken = 0
        while taken < wanted, let first = pieces.first {
            let n = min(wanted - taken, first.count - readInFirst)
            if let buffer {
                first.withUnsafeBytes { bytes in
                    let start = bytes.baseAddress! + readInFirst
                    (buffer.baseAddress! + taken).copyMemory(from: start, byteCount: n)
                }
            }
            taken += n
            readInFirst += n
            if readInFirst == first.count {
                pieces.removeFirst()
                readInFirst = 0
            }
        }
        count -= taken
        return taken
    }
}
