import CoreMedia
import FFmpegBridge
import Foundation
import OAVFLocking

/// The cues of one subtitle stream, in start order, as its ``SubtitleTrackReader`` decodes them (mpv keeps a
/// stream's decoded subtitles the same way, so seeks and reverse play find them without re-reading).
///
/// Cues are kept for the whole item: a seek, any rate or direction asks the store what is shown at a time. A cue
/// decoded twice (the same start and regions) is kept once.
///
/// Thread-safe: the reader's thread adds cues, any thread reads them.
package final class SubtitleCueStore: @unchecked Sendable {
    /// The stream the cues come from (container index).
    package let streamIndex: Int
    /// Guards every `var` below. The subtitle reader's thread appends, the engine thread and outputs read. Not an
    /// engine command: the reader cannot wait for the engine's mailbox.
    private let lock = ConditionLock()
    /// The cues, sorted by start (stable for equal starts: decode order).
    private var cues: [SubtitleCue] = []
    private var _assHeader: String?
    private var _frameSize: (width: Int, height: Int) = (0, 0)
    private var _isComplete = false
    private var _failure: FFmpegError?
    /// Bumped by every change, so readers can tell whether to look again.
    private var _version = 0
    /// Called (outside the lock, on the thread that changed the store) after cues are added or the store finishes.
    private var observers: [@Sendable () -> Void] = []

    package init(streamIndex: Int) {
        self.streamIndex = streamIndex
    }

    // MARK: Reader side

    /// The stream's ASS header (the styles its events name) and bitmap frame size, once the decoder is open.
    package func setFormat(assHeader: String?, frameSize: (width: Int, height: Int)) {
        lock.withLock {
            _assHeader = assHeader
            _frameSize = frameSize
        }
    }

    /// Adds `cue` in start order, unless the same cue is already there.
    package func add(_ cue: SubtitleCue) {
        let added: Bool = lock.withLock {
            let i = cues.firstIndex { $0.start > cue.start } ?? cues.count
            var j = i - 1
            while j >= 0 && cues[j].start == cue.start {
                if cues[j].regions == cue.regions { return false }
                j -= 1
            }
            cues.insert(cue, at: i)
            _version += 1
            return true
        }
        if added { notifyObservers() }
    }

    /// The stream was read to its end (or failed: `failure`).
    package func finish(failure: FFmpegError? = nil) {
        lock.withLock {
            _isComplete = true
            _failure = failure
            _version += 1
        }
        notifyObservers()
    }

    /// Calls `handler` after every later change (cues added, the store finished): a reader of the store that is not
    /// moving (a paused playhead) learns of cues decoded after their time.
    package func addObserver(_ handler: @escaping @Sendable () -> Void) {
        lock.withLock { observers.append(handler) }
    }

    private func notifyObservers() {
        for observer in lock.withLock({ observers }) { observer() }
    }

    // MARK: Readers

    /// The ASS header libavcodec made for the stream; nil for bitmap formats or before the decoder opened.
    package var assHeader: String? { lock.withLock { _assHeader } }
    /// The bitmap frame size (zeros when unknown).
    package var frameSize: (width: Int, height: Int) { lock.withLock { _frameSize } }
    /// Whether every cue of the stream is in.
    package var isComplete: Bool { lock.withLock { _isComplete } }
    /// Why reading stopped early, if it did.
    package var failure: FFmpegError? { lock.withLock { _failure } }
    /// Changes whenever cues are added or reading ends.
    package var version: Int { lock.withLock { _version } }
    /// Every cue so far, in start order.
    package var allCues: [SubtitleCue] { lock.withLock { cues } }

    /// Where cue `i` ends: its own end, else the next later start (or never). A picture (PGS, DVB, VobSub) ends at the
    /// next later start even when its own end is later: a bitmap stream's next subtitle (or empty clearing one)
    /// replaces what is on screen, whatever the previous one's display time said (DVB's page time-out, for one, is
    /// a maximum; mpv and ffplay replace them the same way).
    private func end(of i: Int) -> CMTime {
        let start = cues[i].start
        let next = cues[(i + 1)...].first { $0.start > start }?.start
        guard let e = cues[i].end else { return next ?? .positiveInfinity }
        if let next, cues[i].regions.contains(where: \.isBitmap) { return min(e, next) }
        return e
    }

    /// The cues with regions shown at `t` playing forwards (`start <= t < end`), in start order.
    package func shown(at t: CMTime) -> [SubtitleCue] {
        lock.withLock {
            cues.indices.filter { !cues[$0].regions.isEmpty && cues[$0].start <= t && t < end(of: $0) }.map {
                cues[$0]
            }
        }
    }

    /// The cues with regions shown just before `t` (`start < t <= end`): what playing backwards shows once it
    /// passed `t`.
    package func shown(justBefore t: CMTime) -> [SubtitleCue] {
        lock.withLock {
            cues.indices.filter { !cues[$0].regions.isEmpty && cues[$0].start < t && t <= end(of: $0) }.map {
                cues[$0]
            }
        }
    }

    /// The times `t` with `lower < t <= upper` where what is shown may change (cue starts and ends), ascending:
    /// what playing forwards from `lower` to `upper` passes.
    package func changes(after lower: CMTime, through upper: CMTime) -> [CMTime] {
        lock.withLock { changeTimes { $0 > lower && $0 <= upper }.sorted() }
    }

    /// The times `t` with `lower <= t < upper` where what is shown may change, descending: what playing backwards
    /// from `upper` to `lower` passes.
    package func changes(before upper: CMTime, downTo lower: CMTime) -> [CMTime] {
        lock.withLock { changeTimes { $0 >= lower && $0 < upper }.sorted(by: >) }
    }

    /// Cue starts and ends that `include` accepts. Under `lock`.
    private func changeTimes(_ include: (CMTime) -> Bool) -> Set<CMTime> {
        var times = Set<CMTime>()
        for i in cues.indices {
            if include(cues[i].start) { times.insert(cues[i].start) }
            let e = end(of: i)
            if e.isNumeric && include(e) { times.insert(e) }
        }
        return times
    }
}
