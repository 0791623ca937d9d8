import CoreMedia
import Foundation
import OAVFLocking

/// One piece of timed metadata on an item's timeline: an ID3 tag (of a `timed_id3` stream, or of an HLS `emsg`
/// box), a SHOUTcast/Icecast (ICY) title change, or a Matroska chapter's tags.
package struct TimedMetadataSample: Sendable, Equatable {
    /// What the sample carries.
    package enum Payload: Sendable, Equatable {
        /// The frames of one ID3v2 tag.
        case id3([ID3Frame])
        /// An ICY metadata block's fields (`StreamTitle`, `StreamUrl` …), in the order sent.
        case icy([(key: String, value: String)])
        /// A Matroska chapter's tags (its title and the tags targeting it), keys lower-cased as libavformat names
        /// them ("title", "artist" …), sorted by key.
        case chapterTags([(key: String, value: String)])
        /// A QuickTime timed-metadata (`mebx`) sample's values with their keys.
        case keyedValues([(key: MetadataKeyTable.Key, value: MetadataKeyTable.Value)])

        package static func == (a: Payload, b: Payload) -> Bool {
            switch (a, b) {
            case (.id3(let x), .id3(let y)): return x == y
            case (.keyedValues(let x), .keyedValues(let y)):
                return x.map(\.key) == y.map(\.key) && x.map(\.value) == y.map(\.value)
            case (.icy(let x), .icy(let y)), (.chapterTags(let x), .chapterTags(let y)):
                return x.map(\.key) == y.map(\.key) && x.map(\.value) == y.map(\.value)
            default: return false
            }
        }
    }

    /// The container stream it came from (nil for ICY, which the transport carries, HLS `emsg` tags and chapters).
    package var streamIndex: Int?
    /// When it takes effect, in item time.
    package var time: CMTime
    /// How long it applies (a chapter's length); nil: until the next sample (ID3 tags and ICY titles have no end).
    package var duration: CMTime?
    /// The payload.
    package var payload: Payload

    package init(streamIndex: Int?, time: CMTime, duration: CMTime? = nil, payload: Payload) {
        self.streamIndex = streamIndex
        self.time = time
        self.duration = duration
        self.payload = payload
    }
}

/// The timed metadata of one item, in time order, as readers find it (a ``TimedMetadataReader`` reading a file's
/// ID3 streams ahead of playback; the demux thread for ICY titles and HLS `emsg` tags as they arrive; the session
/// for a Matroska file's chapter tags, all at once when it opens).
///
/// A sample stays in effect until the next one (ID3 tags in MPEG-TS and ICY titles have no end of their own; a
/// chapter's sample states its length, but followers treat it the same way).
/// A sample found twice (the same time and payload) is kept once.
///
/// Thread-safe: readers add on their threads, any thread reads.
package final class TimedMetadataStore: @unchecked Sendable {
    /// Guards every `var` below. Reader and demux threads append, the engine thread and outputs read. Not an engine
    /// command: the writers are threads that cannot wait for the engine's mailbox.
    private let lock = ConditionLock()
    /// Sorted by time (stable for equal times: arrival order).
    private var samples: [TimedMetadataSample] = []
    private var observers: [@Sendable () -> Void] = []
    private var complete = false

    package init() {}

    /// Every sample of a file is in (its reader reached the end). Streams that go on (ICY) never finish.
    package func finish() {
        lock.withLock { complete = true }
        notifyObservers()
    }

    /// Whether ``finish()`` was called.
    package var isComplete: Bool { lock.withLock { complete } }

    /// Adds `sample` in time order, unless it is there already.
    package func add(_ sample: TimedMetadataSample) {
        let added: Bool = lock.withLock {
            let i = index(after: sample.time)
            var j = i - 1
            while j >= 0 && samples[j].time == sample.time {
                if samples[j] == sample { return false }
                j -= 1
            }
            samples.insert(sample, at: i)
            return true
        }
        if added { notifyObservers() }
    }

    /// Calls `handler` after every later addition (on the adding thread, no lock held): a follower whose playhead
    /// does not move learns of samples found after their time.
    package func addObserver(_ handler: @escaping @Sendable () -> Void) {
        lock.withLock { observers.append(handler) }
    }

    private func notifyObservers() {
        for observer in lock.withLock({ observers }) { observer() }
    }

    /// Every sample so far, in time order.
    package var allSamples: [TimedMetadataSample] { lock.withLock { samples } }

    /// The samples with `lower < time <= upper`, in time order: what playing forwards from `lower` to `upper`
    /// passes.
    package func samples(after lower: CMTime, through upper: CMTime) -> [TimedMetadataSample] {
        lock.withLock {
            let (from, to) = (index(after: lower), index(after: upper))
            return from < to ? Array(samples[from..<to]) : []
        }
    }

    /// The samples with `lower < time <= upper`, latest first: what playing backwards from `upper` to `lower`
    /// passes.
    package func samples(before upper: CMTime, downTo lower: CMTime) -> [TimedMetadataSample] {
        lock.withLock {
            let (from, to) = (index(after: lower), index(after: upper))
            return from < to ? samples[from..<to].reversed() : []
        }
    }

    /// The sample in effect at `t` (the latest with `time <= t`), nil before the first.
    package func sample(at t: CMTime) -> TimedMetadataSample? {
        lock.withLock {
            let i = index(after: t)
            return i > 0 ? samples[i - 1] : nil
        }
    }

    /// The sample in effect just before `t` (the latest with `time < t`).
    package func sample(justBefore t: CMTime) -> TimedMetadataSample? {
        lock.withLock {
            let i = index(atOrAfter: t)
            return i > 0 ? samples[i - 1] : nil
        }
    }

    /// The index of the first sample later than `t` (binary search: a live stream's store grows all session long,
    /// and it is asked at every playback step). Under `lock`.
    private func index(after t: CMTime) -> Int {
        partition { $0.time > t }
    }

    /// The index of the first sample at or after `t`. Under `lock`.
    private func index(atOrAfter t: CMTime) -> Int {
        partition { $0.time >= t }
    }

    /// The first index whose sample satisfies `isUpper` (false for every earlier one, true for every later one).
    private func partition(_ isUpper: (TimedMetadataSample) -> Bool) -> Int {
        var low = 0
        var high = samples.count
        while low < high {
            let mid = (low + high) / 2
            if isUpper(samples[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
