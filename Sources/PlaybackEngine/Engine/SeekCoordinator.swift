import CoreMedia
import Foundation

/// Seeks, frame steps and live stream switches of the current item (ffplay's `seek_req` handling with mpv's
/// latest-wins coalescing).
///
/// - A seek asked for replaces one not begun yet and cancels one in flight: superseded completions report `false`
///   (latest wins); serials in the pipeline drop what the old position produced.
/// - A seek begins between two engine steps: the pipeline repositions (its serials bump) and the engine waits for
///   the first frame of the new serial, re-bases the clock on it (on the target for exact seeks), shows it and
///   completes `true`.
/// - Steps forward take the next decoded pictures; steps back are exact seeks to just before the picture on screen.
/// - A stream switch (another audio language, a track turned off or on) changes the pipeline's streams and then
///   seeks silently and exactly to the playhead, resuming on the switch point's clock anchor.
///
/// Engine thread only.
final class SeekCoordinator {
    /// A seek requested or in flight.
    struct Seek {
        var session: ItemSession
        var target: CMTime
        var mode: SeekMode
        var completion: (@Sendable (Bool) -> Void)?
        /// A repositioning the app did not ask for (a stream switch, a realignment): no time jump is reported.
        var silent = false
        /// The playhead goes to the start of the picture landed on, not to the target (backward steps).
        var landsOnPictureStart = false
        /// For a silent repositioning while playing: the host time of `target`; the clock resumes on that anchor,
        /// so time that passed meanwhile still counts.
        var resumeHost: UInt64?
        /// The session's damage count when the seek began (more since: the target lies in damaged data).
        var damageAtBegin = 0
        var isExact: Bool { mode == .exact }
    }

    /// A stream switch waiting for the next step.
    struct StreamSwitch {
        var session: ItemSession
        var video: Int?
        var audio: Int?
        /// The playhead at the moment the switch was asked for.
        var time: CMTime
        /// The host time of `time` when playing then.
        var host: UInt64?
    }

    /// A paused exact seek at most this far behind the playhead decodes every picture before its target into the
    /// picture cache (backward steps and scrubs go on from there); farther ones skip what they can (about the span a
    /// default cache holds of 1080p pictures).
    static let cacheFillDistance = CMTime(value: 2, timescale: 1)

    /// Longest sleep of the engine thread, waiting for a decoder, between checks (seconds): a picture pushed wakes
    /// it sooner (``FrameQueue/setReaderWakeup(_:)``), and so does a command; the interval bounds only a wait for
    /// what signals nobody (a decoder that finished).
    static let pollInterval = 0.01
    /// Longest sleep waiting for the demuxer to perform a seek between checks (seconds): the flush signals nobody;
    /// a command or the first picture after it wakes the engine sooner.
    static let seekPollInterval = 0.002
    /// A target this far before the next decodable picture, or before the video's stated end without one, lies in
    /// a stretch of video that is missing (no healthy file has pictures a second apart or ends its video early).
    static let pictureGap = CMTime(value: 1, timescale: 1)

    /// How far before the video's stated end a target must lie for its stretch to count as missing when no picture
    /// comes: ``pictureGap``, or a tenth of a shorter video (a 2 s clip's last second is not all margin).
    static func margin(before stated: CMTimeRange) -> CMTime {
        min(pictureGap, CMTimeMultiplyByFloat64(stated.duration, multiplier: 0.1))
    }

    /// The seek to begin at the next step (latest wins).
    private(set) var pending: Seek?
    /// The seek begun and waiting for its first frame.
    private(set) var awaiting: Seek?
    /// Frames to step at the next step (requests add up).
    private(set) var pendingStep: (session: ItemSession, count: Int)?
    /// The stream switch to perform at the next step.
    private(set) var pendingSwitch: StreamSwitch?
    /// After stepping, audio is re-aligned (a silent exact seek) when playback resumes forwards.
    var resyncOnPlay = false
    /// The session whose pipeline is ahead of the playhead because a picture came from the picture cache (backward
    /// steps and scrubs): forward steps beyond the cache then seek. Cleared by every seek begun.
    private var displaced: ItemSession?
    /// Bumped by every seek begun: a reverse source started before one is stale.
    private(set) var generation = 0

    private let items: ItemQueue
    private let transport: Transport
    private let presenter: VideoPresenter
    private let audio: AudioOutputDriver
    private let observers: TimeObserverRegistry
    private let outbox: EventOutbox
    private let stopped: () -> Bool
    /// Wakes the engine thread (its mailbox): what a video frame queue calls after a push while a seek waits for its
    /// first picture, so that the engine sleeps where a command also wakes it instead of on the queue.
    private let wakeEngine: @Sendable () -> Void

    init(
        items: ItemQueue, transport: Transport, presenter: VideoPresenter, audio: AudioOutputDriver,
        observers: TimeObserverRegistry, outbox: EventOutbox, stopped: @escaping () -> Bool,
        wakeEngine: @escaping @Sendable () -> Void = {}
    ) {
        self.wakeEngine = wakeEngine
        self.items = items
        self.transport = transport
        self.presenter = presenter
        self.audio = audio
        self.observers = observers
        self.outbox = outbox
        self.stopped = stopped
    }

    // MARK: Requests (commands)

    /// Asks for a seek of `session` (see ``Seek``); completes `false` at once unless it is the current, playable
    /// item.
    func request(_ session: ItemSession, to target: CMTime, mode: SeekMode, completion: (@Sendable (Bool) -> Void)?) {
        EngineThread.assertCurrent()
        supersedeAll()
        guard items.isCurrent(session), items.current?.phase != .failed else {
            pending = nil
            outbox.complete(completion, false)
            return
        }
        pending = Seek(session: session, target: target, mode: mode, completion: completion)
    }

    /// An exact seek without completion (`setRate(_:time:atHostTime:)`), replacing a pending one.
    func requestExact(_ session: ItemSession, to target: CMTime) {
        outbox.completeInOrder(pending?.completion, false)
        pending = Seek(session: session, target: target, mode: .exact)
    }

    /// A silent exact repositioning of the current item to `target` unless a seek is pending or in flight.
    func realign(_ session: ItemSession, to target: CMTime) {
        guard pending == nil, awaiting == nil, items.isCurrent(session) else { return }
        var seek = Seek(session: session, target: target, mode: .exact)
        seek.silent = true
        pending = seek
    }

    /// Completes the pending and in-flight seeks of `session` with `false`.
    func cancel(_ session: ItemSession) {
        if let p = pending, p.session === session {
            outbox.completeInOrder(p.completion, false)
            pending = nil
        }
        if let a = awaiting, a.session === session {
            outbox.completeInOrder(a.completion, false)
            awaiting = nil
        }
    }

    /// Completes every seek with `false` (shutdown).
    func cancelAll() {
        supersedeAll()
        pending = nil
        pendingStep = nil
        pendingSwitch = nil
    }

    /// The current item changed to `current`: seeks of other items complete `false`.
    func currentChanged(to current: ItemSession?) {
        if let p = pending, p.session !== current {
            outbox.complete(p.completion, false)
            pending = nil
        }
        if let a = awaiting, a.session !== current {
            outbox.complete(a.completion, false)
            awaiting = nil
        }
    }

    /// Asks to switch the streams `session` plays, as of host time `host`.
    func requestStreams(_ session: ItemSession, video: Int?, audio: Int?, asOf host: UInt64) {
        guard items.isCurrent(session), items.current?.isPlayable == true else { return }
        let played = session.descriptor
        if pendingSwitch == nil, video == played.videoStream, audio == played.audioStream { return }  // nothing changes
        let running = transport.isRunning
        var (time, anchor) = running ? (transport.time(at: host), host) : (transport.playhead, nil)
        if !running, let resuming = resumeAnchor(of: session) {
            // An earlier switch's repositioning has not landed yet (the clock waits for it): this one resumes on the
            // same anchor, so time that passed while it was under way still counts (a manual clock advanced meanwhile
            // would otherwise be skipped, and the item would sit still until the clock moved again).
            (time, anchor) = resuming
        }
        pendingSwitch = StreamSwitch(session: session, video: video, audio: audio, time: time, host: anchor)
    }

    /// The anchor a switch or silent repositioning of `session` under way will resume the clock on: its item time and
    /// the host time it stands for.
    private func resumeAnchor(of session: ItemSession) -> (CMTime, UInt64)? {
        if let change = pendingSwitch, change.session === session, let host = change.host { return (change.time, host) }
        for seek in [pending, awaiting].compactMap({ $0 }) where seek.session === session {
            if let host = seek.resumeHost { return (seek.target, host) }
        }
        return nil
    }

    /// Asks to step `session` by `count` pictures as of host time `host`; a playing item pauses first.
    func requestStep(_ session: ItemSession, by count: Int, asOf host: UInt64) {
        guard count != 0, items.isCurrent(session), items.current?.isPlayable == true else { return }
        if transport.rate != 0 {
            if transport.isRunning { transport.stop(asOf: host) }
            transport.pauseOnItsOwn()
        }
        let before = pendingStep?.session === session ? pendingStep?.count ?? 0 : 0
        pendingStep = (session, before + count)
    }

    /// Whether a step is pending for `session` (and no seek is in flight).
    func hasStep(for session: ItemSession) -> Bool {
        pendingStep?.session === session && awaiting == nil
    }

    /// Whether a seek of `session` waits for its first frame.
    func isAwaiting(_ session: ItemSession) -> Bool { awaiting?.session === session }

    /// Whether a seek is pending or in flight.
    var isBusy: Bool { pending != nil || awaiting != nil }

    // MARK: Engine steps

    /// Performs, for the current `session`, what was asked since the last step: a stream switch, then a seek.
    func beginRequested(_ session: ItemSession) {
        if pendingSwitch?.session === session { performStreamSwitch(session) }
        if let seek = pending, seek.session === session {
            pending = nil
            begin(seek)
        }
        if transport.rate > 0 && resyncOnPlay && awaiting == nil {
            // Resuming after frame steps: re-align audio with an exact silent seek to the playhead.
            resyncOnPlay = false
            var seek = Seek(session: session, target: transport.playhead, mode: .exact)
            seek.silent = true
            if transport.isRunning {
                // The clock already runs: resume on its anchor, so time that passes during the seek still counts.
                (seek.target, seek.resumeHost) = (transport.clock.item, transport.clock.host)
            }
            begin(seek)
        }
    }

    /// Repositions the pipeline for `seek` and waits for its first frame. An exact seek asked for while paused
    /// continues forward from the decoder's position when its target lies ahead, before the next keyframe (the
    /// demuxer decides); audio is not playing then, so nothing it already took is missed.
    private func begin(_ seek: Seek) {
        let paused = seek.isExact && !seek.silent && transport.rate == 0
        if paused, let frame = seek.session.cachedPicture(at: seek.target) ?? onScreen(covering: seek) {
            land(seek, fromCache: frame)
            return
        }
        displaced = nil
        var seek = seek
        seek.damageAtBegin = seek.session.damageCount
        seek.session.setCachesPictures(transport.rate == 0)
        let playhead = transport.playhead
        let fillingCache = paused && seek.target < playhead && playhead - seek.target <= Self.cacheFillDistance
        seek.session.seek(to: seek.target, mode: seek.mode, continuing: paused, fillingCache: fillingCache)
        audio.renderer.flush()
        items.update(seek.session) { if $0.hasEnded { $0.phase = .ready } }
        generation += 1
        awaiting = seek
        transport.halt(at: transport.playhead)
        presenter.flushSinks(session: seek.session)
    }

    /// The picture on screen when it is the one at the target of `seek` by its duration. The cache cannot tell before
    /// its successor is decoded (the next HLS segment still on its way), and continuing forward would land on that
    /// successor.
    private func onScreen(covering seek: Seek) -> VideoFrame? {
        guard !seek.landsOnPictureStart, items.isCurrent(seek.session) else { return nil }
        return presenter.shownPicture(covering: seek.target)
    }

    /// Completes `seek` at once with a picture from the picture cache (or the one on screen): nothing is decoded; the pipeline stays where
    /// it is (audio and video are re-aligned with a silent seek when playback resumes).
    private func land(_ seek: Seek, fromCache frame: VideoFrame) {
        let session = seek.session
        generation += 1
        awaiting = nil
        displaced = session
        let time = seek.landsOnPictureStart ? session.itemTime(frame.pts) : seek.target
        items.update(session) { if $0.hasEnded { $0.phase = .ready } }
        audio.renderer.flush()
        transport.halt(at: time)
        presenter.flushSinks(session: session)
        presenter.resetPlayhead()
        outbox.emit(.timeJumped(session))
        var shown = frame
        if let serial = session.videoSerial { shown.serial = serial }
        presenter.present(shown, session: session)
        session.anchorPictureCache(at: time)
        items.update(session) { $0.hasShownFirstFrame = true }
        resyncOnPlay = true
        observers.event(at: time)
        outbox.complete(seek.completion, true)
    }

    /// Switches the streams of `session` as asked (the pipeline continues with the new streams from the playhead).
    private func performStreamSwitch(_ session: ItemSession) {
        guard var change = pendingSwitch, change.session === session else { return }
        pendingSwitch = nil
        // Playback started after the switch was asked for (a `play()` right after a selection): keep the pace of
        // that start, so time that passed since (a manual clock advanced) is played, not skipped.
        if transport.isRunning, change.host == nil {
            (change.time, change.host) = (transport.clock.item, transport.clock.host)
        }
        transport.halt(at: change.time)
        do {
            try session.setStreams(video: change.video, audio: change.audio)
        } catch {
            outbox.emit(.itemFailedToPlayToEnd(session, error))
            return
        }
        audio.renderer.flush()
        supersedeAll()
        var seek = Seek(session: session, target: change.time, mode: .exact)
        seek.silent = true
        seek.resumeHost = change.host
        pending = seek
    }

    /// Completes the seek in flight if its first frame arrived; returns how long the engine may sleep.
    ///
    /// It never blocks: while it waits for the demuxer or a decoder it returns a sleep, which the engine spends in its
    /// mailbox — a command ends it at once, and so does the next picture pushed (the video frame queue wakes the
    /// engine from now on).
    func completeIfLanded(_ session: ItemSession) -> Double {
        guard var seek = awaiting else { return 0 }
        if let frames = session.videoFrames {
            frames.setReaderWakeup(wakeEngine)
        } else {
            // Audio only: its first frame lands the seek.
            session.audioFrames?.setReaderWakeup(wakeEngine)
        }
        if session.isSeekInFlight {
            // The demuxer has not flushed yet: every frame queued still belongs to the old position.
            return Self.seekPollInterval
        }
        if session.takeSeekFailure() {
            awaiting = nil
            outbox.complete(seek.completion, false)
            return 0
        }
        // Pictures before an exact target: none after a seek (the decoder drops them), those already queued after a
        // seek that continued forward.
        if seek.isExact && !skipVideo(session, endingBefore: seek.target) { return Self.pollInterval }
        guard let (landed, onKeyframe) = landing(session, target: seek.target) else { return Self.pollInterval }
        // A window seek that could not land on a keyframe inside the window decodes to the target: pictures that
        // end before it are skipped (waiting for the decoder as needed).
        if case .window(let before, let after) = seek.mode {
            let low = before.isPositiveInfinity ? CMTime.negativeInfinity : seek.target - before
            let high = after.isPositiveInfinity ? CMTime.positiveInfinity : seek.target + after
            // Only a sync sample inside the window is a landing; anything else decodes to the target.
            if landed < low || landed > high || !onKeyframe {
                if !skipVideo(session, endingBefore: seek.target) { return Self.pollInterval }
                seek.mode = .exact
                awaiting?.mode = .exact
            }
        }
        awaiting = nil
        var time = seek.isExact && !seek.landsOnPictureStart ? seek.target : max(landed, .zero)
        // Damaged data: the pictures at the target could not be read or decoded.
        let damaged = session.damageCount > seek.damageAtBegin
        let stated = session.statedVideoRange
        if landed > time, damaged || seek.target >= stated?.start ?? .zero {
            // Land on the nearest picture that could be decoded, so the picture shown is the one at the playhead (a
            // video output asked for the current time gets it). A healthy file always has a picture at or before a
            // target inside its video (the decoder keeps the one containing it): the first picture after it means the
            // ones before could not be had — unreadable, undecodable, or an index whose keyframe lies past the target
            // (a damaged `moov` put one 1/15360 s after it). A target before the video's start keeps its time.
            time = landed
        }
        // No picture at or after the target could be read or decoded although the video goes on there: the seek
        // moves the playhead but reports `false`, so a caller waiting for the picture (a frame grab) knows none comes.
        let pictureless =
            seek.isExact && !seek.silent && session.videoFrames?.count == 0 && session.isVideoDecoderFinished
            && (damaged || stated.map { seek.target + Self.margin(before: $0) < $0.end } ?? false)
        audio.renderer.discard(before: time)
        transport.halt(at: time)
        if let host = seek.resumeHost, transport.rate != 0 {
            // Resume on the anchor of the switch point: the playhead keeps its pace.
            transport.deferredStartHost = nil
            transport.run(from: time, host: host, rate: transport.rate)
            audio.renderer.setActive(
                session.hasAudio && audio.plays(rate: transport.rate, algorithm: transport.algorithm))
        }
        var jumped = false
        if !seek.silent {
            presenter.resetPlayhead()
            outbox.emit(.timeJumped(session))
            jumped = true
        }
        presenter.showFirstFrame(session)
        items.update(session) { $0.hasShownFirstFrame = true }
        if jumped { observers.event(at: time) }
        outbox.complete(seek.completion, !pictureless)
        return 0
    }

    /// Where the seek landed: the item time of the first frame of the new serial (video, else audio), and whether
    /// it is a keyframe; the target when the stream's decoder finished without one; nil while nothing arrived.
    private func landing(_ session: ItemSession, target: CMTime) -> (CMTime, Bool)? {
        if let frames = session.videoFrames {
            while let (frame, serial) = frames.peek() {
                if serial != session.videoSerial {
                    frames.pop()
                    continue
                }
                return (session.itemTime(frame.pts), frame.isKeyframe)
            }
            return session.isVideoDecoderFinished ? (target, true) : nil
        }
        if let frames = session.audioFrames {
            while let (frame, serial) = frames.peek() {
                if serial != session.audioSerial {
                    frames.pop()
                    continue
                }
                return (session.itemTime(frame.pts), true)
            }
            return session.isAudioDecoderFinished ? (target, true) : nil
        }
        // Nothing decodes (every track disabled): the playhead simply moves.
        return (target, true)
    }

    /// Pops pictures of the current serial that end at or before `target`. Returns false while the picture
    /// containing `target` has not been decoded yet (call again).
    private func skipVideo(_ session: ItemSession, endingBefore target: CMTime) -> Bool {
        guard let frames = session.videoFrames else { return true }
        while let (frame, serial) = frames.peek() {
            if serial != session.videoSerial {
                frames.pop()
                continue
            }
            let end = session.itemTime(frame.pts + frame.duration)
            if end <= target && frame.duration > .zero {
                frames.pop()
                continue
            }
            return true
        }
        if session.isVideoDecoderFinished { return true }
        return false
    }

    /// Performs the pending step of `session`: forward presents the next decoded pictures; backward seeks exactly
    /// to just before the picture on screen. Clamped at the ends.
    func performStep(_ session: ItemSession) {
        guard let step = pendingStep, step.session === session else { return }
        pendingStep = nil
        session.setCachesPictures(true)  // stepping pauses
        if step.count < 0, let current = presenter.lastPresented,
            let frame = session.cachedPicture(step.count, from: current)
        {
            // Inside the picture cache: a reference to a picture decoded before, nothing to decode. The pipeline is
            // left ahead of the playhead (re-aligned when playback resumes).
            displaced = session
            generation += 1  // like a seek: a reverse source started before is stale
            present(stepped: frame, session: session, backwards: true)
            return
        }
        if step.count < 0 {
            let current = presenter.lastPresented ?? transport.playhead
            let duration = presenter.lastFrameDuration
            let frame = duration.isNumeric && duration > .zero ? duration : CMTime(value: 1, timescale: 30)
            // Just before the picture on screen (exact whatever the previous picture's duration), and one frame
            // duration further per extra step; the playhead then goes to the start of the picture landed on.
            var target =
                current - CMTime(value: 1, timescale: 1_000_000)
                - CMTimeMultiply(frame, multiplier: Int32(clamping: -step.count - 1))
            if target < .zero { target = .zero }
            var seek = Seek(session: session, target: target, mode: .exact)
            seek.landsOnPictureStart = true
            pending = seek
            resyncOnPlay = false
            items.update(session) { if $0.hasEnded { $0.phase = .ready } }
            return
        }
        guard let frames = session.videoFrames else { return }
        var last: VideoFrame?
        var taken = 0
        // The cache first (after backward steps the pictures between the playhead and the pipeline are there).
        var shown = presenter.lastPresented
        while taken < step.count, let from = shown, let next = session.cachedPicture(1, from: from) {
            last = next
            shown = session.itemTime(next.pts)
            taken += 1
        }
        if taken < step.count, displaced === session, let from = shown {
            // The pipeline is somewhere ahead and the cache has no more: an exact seek to the picture wanted
            // (one frame duration per step further on).
            let duration = last?.duration ?? presenter.lastFrameDuration
            let frame = duration.isNumeric && duration > .zero ? duration : CMTime(value: 1, timescale: 30)
            var seek = Seek(
                session: session,
                target: from + CMTimeMultiply(frame, multiplier: Int32(clamping: step.count - taken)), mode: .exact)
            seek.landsOnPictureStart = true
            pending = seek
            return
        }
        while taken < step.count && !stopped() {
            if let (frame, serial) = frames.peek() {
                frames.pop()
                if serial != session.videoSerial { continue }
                if let shown, session.itemTime(frame.pts) <= shown { continue }
                last = frame
                shown = session.itemTime(frame.pts)
                taken += 1
                continue
            }
            if session.isVideoDecoderFinished { break }  // clamped at the end
            _ = frames.waitUntilReadable(timeout: Self.pollInterval)
        }
        guard let last else { return }
        present(stepped: last, session: session, backwards: false)
    }

    /// Shows `frame` as the result of a step and moves the playhead to it.
    private func present(stepped frame: VideoFrame, session: ItemSession, backwards: Bool) {
        var shown = frame
        if let serial = session.videoSerial { shown.serial = serial }
        let t = session.itemTime(frame.pts)
        items.update(session) { if $0.hasEnded { $0.phase = .ready } }
        transport.halt(at: t)
        presenter.present(shown, session: session, backwards: backwards)
        session.anchorPictureCache(at: t)
        resyncOnPlay = displaced === session || session.hasAudio
        outbox.emit(.timeJumped(session))
        observers.event(at: t)
    }

    /// Completes the pending and in-flight seeks with `false` (a new seek or switch supersedes them).
    private func supersedeAll() {
        outbox.completeInOrder(pending?.completion, false)
        outbox.completeInOrder(awaiting?.completion, false)
        pending?.completion = nil
        awaiting = nil
    }
}
