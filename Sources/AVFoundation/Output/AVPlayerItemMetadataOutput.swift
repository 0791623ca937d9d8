import Foundation
import PlaybackEngine

/// Delivers the item's timed metadata to a delegate as playback reaches it (Apple's
/// `AVPlayerItemMetadataOutput`):
///
///     let output = AVPlayerItemMetadataOutput(identifiers: [AVMetadataIdentifier.id3MetadataTitleDescription.rawValue])
///     output.setDelegate(self, queue: .main)
///     item.add(output)
///     // metadataOutput(_:didOutputTimedMetadataGroups:from:) as playback passes each tag
///
/// Each call carries one ``AVTimedMetadataGroup``: the items of one ID3 tag (or ICY title change), whose
/// `timeRange` starts at its time with an indefinite duration (it holds until the next), as Apple delivers HLS
/// ID3; or a Matroska chapter's tags over the chapter's time range. Groups come in order and each once as playback passes them; at the start of playback and after a seek
/// (announced by ``AVPlayerItemOutputPushDelegate/outputSequenceWasFlushed(_:)``) the group in effect there comes
/// first. Items whose identifier is not among `identifiers` are left out, and a group left with none is not
/// delivered.
///
/// Sources: `timed_id3` data streams (ID3 in MPEG-TS) of files on this machine, read ahead of playback, and of
/// network files and HLS segments, read with the played packets; ID3 tags in `emsg` boxes of HLS fragmented-MP4
/// segments, found as the segments are read; ICY (SHOUTcast/Icecast) `StreamTitle` changes of HTTP streams as they
/// arrive; the chapters of Matroska files, with their titles and the tags that target them; QuickTime timed-metadata
/// (`mebx`) tracks of files on this machine, read ahead of playback, one group per sample (see `README.md`).
///
/// Differs from Apple:
/// - With no delegate queue the delegate is called on the main queue.
/// - `track` is the item's metadata track the tag came from, nil for ICY titles (carried by the transport), `emsg`
///   tags (carried beside the segments' tracks) and chapter tags.
/// - Matroska chapter tags are not Apple's (its players do not read Matroska); their identifiers are
///   `org.ffmpeg/<tag>`, as the file's own Matroska tags.
///
/// Thread-safe: every member may be called from any thread.
open class AVPlayerItemMetadataOutput: AVPlayerItemOutput, @unchecked Sendable {
    /// The identifiers delivered (nil: all).
    private let wanted: Set<String>?
    /// Follows the playhead on the engine thread.
    let feed = TimedMetadataFeed()

    /// Guarded by `outputLock`.
    private weak var pushDelegate: (any AVPlayerItemMetadataOutputPushDelegate)?
    private var queue: DispatchQueue?
    private var advanceInterval: TimeInterval = 0

    /// An output delivering the metadata items whose identifiers are listed (raw values of
    /// ``AVMetadataIdentifier``; nil: every item), as Apple's `init(identifiers:)`.
    public init(identifiers: [String]?) {
        wanted = identifiers.map(Set.init)
        super.init()
        feed.owner = WeakMetadataOutput(self)
    }

    /// An output delivering every item.
    public convenience override init() {
        self.init(identifiers: nil)
    }

    // MARK: Delegate

    /// The delegate, held weakly, as Apple's `delegate`.
    open var delegate: (any AVPlayerItemMetadataOutputPushDelegate)? { outputLock.withLock { pushDelegate } }

    /// The queue delegate methods are called on, as Apple's `delegateQueue`.
    open var delegateQueue: DispatchQueue? { outputLock.withLock { queue } }

    /// Sets the delegate (held weakly) and its queue, as Apple's `setDelegate(_:queue:)`. A delegate without a
    /// queue, or a queue without a delegate, traps (Apple raises). Use a serial queue: calls are made in order.
    open func setDelegate(
        _ delegate: (any AVPlayerItemMetadataOutputPushDelegate)?, queue delegateQueue: DispatchQueue?
    ) {
        if (delegate == nil) != (delegateQueue == nil) {
            apiViolation("AVPlayerItemMetadataOutput's delegate and delegate queue must both be set or both be nil.")
        }
        outputLock.withLock {
            pushDelegate = delegate
            queue = delegateQueue
        }
    }

    /// How long before its time a group may be delivered, in seconds of playback, as Apple's
    /// `advanceIntervalForDelegateInvocation` (default 0: at its time). A negative or non-finite value counts as 0.
    open var advanceIntervalForDelegateInvocation: TimeInterval {
        get { outputLock.withLock { advanceInterval } }
        set { outputLock.withLock { advanceInterval = newValue.isFinite ? max(0, newValue) : 0 } }
    }

    // MARK: Engine side

    override func bindingChanged(from old: Binding?, to new: Binding?) {
        if let old, old.engine !== new?.engine { old.engine.removePlayheadSink(feed) }
        feed.setSession(new?.session)
        new?.engine.addPlayheadSink(feed)
    }

    /// Calls `metadataOutput(_:didOutputTimedMetadataGroups:from:)` with `sample`'s items that are wanted.
    func deliver(_ sample: TimedMetadataSample) {
        let items = AVMetadataItem.items(for: sample).filter { item in
            wanted.map { set in item.identifier.map { set.contains($0.rawValue) } ?? false } ?? true
        }
        guard !items.isEmpty else { return }
        let group = AVTimedMetadataGroup(
            items: items, timeRange: CMTimeRange(start: sample.time, duration: sample.duration ?? .indefinite))
        // (The item's tracks as they will be published: a group at the start comes before `tracks` is set.)
        let track = sample.streamIndex.flatMap { index in
            attachedItem?.sessionTracks().first { $0.assetTrack?.streamIndex == index }
        }
        send { delegate, output in
            delegate.metadataOutput(output, didOutputTimedMetadataGroups: [group], from: track)
        }
    }

    /// Calls `outputSequenceWasFlushed` on the delegate queue.
    func notifySequenceWasFlushed() {
        send { delegate, output in delegate.outputSequenceWasFlushed(output) }
    }

    private func send(
        _ call: @escaping (any AVPlayerItemMetadataOutputPushDelegate, AVPlayerItemMetadataOutput) -> Void
    ) {
        let (delegate, queue) = outputLock.withLock { (pushDelegate, self.queue) }
        guard let delegate else { return }
        // The delegate is used only on its queue, as the API contract says.
        let work = UncheckedMetadataDelivery(delegate: delegate, output: self, call: call)
        (queue ?? .main).async { work.run() }
    }
}

/// What a metadata output hands its delegate, as Apple's `AVPlayerItemMetadataOutputPushDelegate`.
///
/// Differs from Apple: the method is `@objc optional` there; here a protocol extension gives a default that does
/// nothing.
public protocol AVPlayerItemMetadataOutputPushDelegate: AVPlayerItemOutputPushDelegate {
    /// Timed metadata reached: one group per call here (groups in one call never overlap), with the item's track
    /// it came from (nil for ICY titles, `emsg` tags and chapter tags).
    func metadataOutput(
        _ output: AVPlayerItemMetadataOutput, didOutputTimedMetadataGroups groups: [AVTimedMetadataGroup],
        from track: AVPlayerItemTrack?)
}

extension AVPlayerItemMetadataOutputPushDelegate {
    /// Does nothing (Apple: an optional method not implemented).
    public func metadataOutput(
        _ output: AVPlayerItemMetadataOutput, didOutputTimedMetadataGroups groups: [AVTimedMetadataGroup],
        from track: AVPlayerItemTrack?
    ) {}
}

/// A delegate call handed to the delegate queue (the delegate need not be `Sendable`; it is only used there).
private struct UncheckedMetadataDelivery: @unchecked Sendable {
    let delegate: any AVPlayerItemMetadataOutputPushDelegate
    let output: AVPlayerItemMetadataOutput
    let call: (any AVPlayerItemMetadataOutputPushDelegate, AVPlayerItemMetadataOutput) -> Void

    func run() { call(delegate, output) }
}

/// The feed's weak reference to its output.
final class WeakMetadataOutput: TimedMetadataFeedOwner, @unchecked Sendable {
    weak var output: AVPlayerItemMetadataOutput?
    init(_ output: AVPlayerItemMetadataOutput) { self.output = output }

    var feedAdvanceInterval: TimeInterval { output?.advanceIntervalForDelegateInvocation ?? 0 }
    func feedDelivered(_ sample: TimedMetadataSample, session: ItemSession) { output?.deliver(sample) }
    func feedFlushed() { output?.notifySequenceWasFlushed() }
}
