import CoreMedia
import Foundation

/// Hands decoded pictures to the video sinks (outputs, layers, tests): composes them first when the item has a
/// video composition, drops pictures that are late, gives sinks with a lead their pictures early, and shows the
/// picture at the playhead while paused (ffplay's `video_refresh`).
///
/// Engine thread only. Sinks are called on the engine thread with no lock held.
final class VideoPresenter {
    /// Longest wait for the decoder before re-checking for a stop request (seconds).
    static let pollInterval = 0.01

    /// The sinks, in the order added.
    private var sinks: [any VideoFrameSink] = []
    /// The sinks that take pictures before they are due (kept with `sinks`, not filtered each step).
    private var leadSinks: [any VideoFrameSink] = []
    /// The longest lead of ``leadSinks`` (seconds); nil without any.
    private var maximumLead: Double?
    /// Item time of the last picture presented for the current item; pictures at or before it are not shown again
    /// (after a silent repositioning). Reset by seeks and item changes.
    var lastPresented: CMTime?
    /// Duration of the last picture presented (stepping back one picture).
    private(set) var lastFrameDuration: CMTime = .invalid
    /// The last picture presented, as decoded (before any composition); nil with ``lastPresented``.
    private var lastFrame: VideoFrame?
    /// The last picture handed to lead sinks before it was due: its session, serial, item time and composed form.
    private var earlyPresented: (session: UUID, serial: Serial, time: CMTime, composed: VideoFrame?)?
    /// Pictures handed to the sinks.
    private(set) var framesPresented = 0
    /// Pictures dropped because a later one was due too.
    private(set) var framesDropped = 0

    /// The sinks following the playhead, in the order added.
    private var playheadSinks: [any PlayheadSink] = []
    /// What ``reportPlayhead(_:rate:session:)`` last told them (not repeated while it stays).
    private var reported: (session: UUID, time: CMTime, rate: Float)?
    /// Tells whether the engine is stopping (waits end early).
    private let stopped: () -> Bool

    init(stopped: @escaping () -> Bool) {
        self.stopped = stopped
    }

    // MARK: Sinks

    func add(_ sink: any VideoFrameSink) {
        guard !sinks.contains(where: { $0 === sink }) else { return }
        sinks.append(sink)
        sinksChanged()
    }

    func remove(_ id: ObjectIdentifier) {
        sinks.removeAll { ObjectIdentifier($0) == id }
        sinksChanged()
    }

    /// Recomputes what the real-time step reads about the sinks, so it does not every step.
    private func sinksChanged() {
        leadSinks = sinks.filter { $0.presentationLeadTime > 0 }
        maximumLead = leadSinks.map(\.presentationLeadTime).max()
    }

    /// The sequence was interrupted (a seek, an item change): sinks drop what they queued; `session` is the item
    /// now current.
    func flushSinks(session: ItemSession?) {
        for sink in sinks { sink.flush(session: session) }
        reported = nil
        for sink in playheadSinks { sink.flush(session: session) }
    }

    func add(_ sink: any PlayheadSink) {
        guard !playheadSinks.contains(where: { $0 === sink }) else { return }
        playheadSinks.append(sink)
        reported = nil
    }

    func removePlayheadSink(_ id: ObjectIdentifier) {
        playheadSinks.removeAll { ObjectIdentifier($0) == id }
    }

    /// Tells the playhead sinks where `session` plays now, unless that is what they were told last.
    func reportPlayhead(_ t: CMTime, rate: Float, session: ItemSession) {
        guard !playheadSinks.isEmpty, t.isNumeric else { return }
        if let r = reported, r.session == session.id, r.time == t, r.rate == rate { return }
        reported = (session.id, t, rate)
        for sink in playheadSinks { sink.playheadMoved(to: t, rate: rate, session: session) }
    }

    /// Counts a picture dropped outside the presenter (reverse play).
    func countDropped() { framesDropped += 1 }

    // MARK: Presenting

    /// Hands `frame` to the sinks (composed first when the item has a video composition), unless it is not after
    /// the picture on screen — before it, when playing `backwards`.
    func present(_ frame: VideoFrame, session: ItemSession, backwards: Bool = false) {
        let t = session.itemTime(frame.pts)
        if let last = lastPresented, backwards ? t >= last : t <= last { return }
        lastPresented = t
        lastFrameDuration = frame.duration
        lastFrame = frame
        framesPresented += 1
        // Sinks with a lead may have had this picture already (`presentEarly`).
        var early = false
        var shown = frame
        var composedEarly: VideoFrame?
        if let e = earlyPresented, e.session == session.id, e.serial == frame.serial, t <= e.time {
            early = true
            if e.time == t { composedEarly = e.composed }
        }
        if let composedEarly {
            shown = composedEarly
        } else if let compose = session.videoCompositor {
            guard let composed = compose(frame, t) else { return }  // the compositor dropped it
            shown = composed
        }
        for s in sinks where !(early && s.presentationLeadTime > 0) {
            s.present(shown, itemTime: t, session: session)
        }
    }

    /// Real time, forwards: hands the next pictures to sinks with a ``VideoFrameSink/presentationLeadTime`` once they
    /// are due within that lead (the queue's next two at most), so an output asked about the next display refresh
    /// already has the picture for it.
    func presentEarly(_ session: ItemSession, upTo t: CMTime, rate: Float) {
        guard let lead = maximumLead, let frames = session.videoFrames else { return }
        let mark = earlyPresented.flatMap { $0.session == session.id ? ($0.time, $0.serial) : nil }
        let horizon = t + CMTime(seconds: lead * Double(abs(rate)), preferredTimescale: 1_000_000_000)
        let serialNow = session.videoSerial
        for next in 0..<2 {
            guard let (frame, serial) = next == 0 ? frames.peek() : frames.peekNext(), serial == serialNow else {
                return
            }
            let ft = session.itemTime(frame.pts)
            guard ft <= horizon else { return }
            if let mark, mark.1 == serial, ft <= mark.0 { continue }  // handed out early already
            if let last = lastPresented, ft <= last { continue }
            var shown = frame
            let compose = session.videoCompositor
            if let compose {
                guard let composed = compose(frame, ft) else { continue }
                shown = composed
            }
            earlyPresented = (session.id, serial, ft, compose == nil ? nil : shown)
            for s in leadSinks { s.present(shown, itemTime: ft, session: session) }
        }
    }

    /// Presents the pictures due at `t`. Real time drops pictures that are already late (a later one is due too);
    /// `untimed` presents every picture and waits for the decoder.
    func presentDue(_ session: ItemSession, upTo t: CMTime, untimed: Bool) {
        guard let frames = session.videoFrames else { return }
        while true {
            guard let (frame, serial) = frames.peek() else {
                if untimed && !session.isVideoDecoderFinished && !stopped() {
                    _ = frames.waitUntilReadable(timeout: Self.pollInterval)
                    continue
                }
                return
            }
            if serial != session.videoSerial {
                frames.pop()
                continue
            }
            let ft = session.itemTime(frame.pts)
            if ft > t { return }
            if !untimed, let (next, nextSerial) = frames.peekNext(), nextSerial == serial,
                session.itemTime(next.pts) <= t
            {
                frames.pop()
                framesDropped += 1
                continue
            }
            frames.pop()
            present(frame, session: session)
        }
    }

    /// Shows the picture at the playhead (the first one of the current serial) while paused: after the item became
    /// ready or a seek landed.
    func showFirstFrame(_ session: ItemSession) {
        guard let frames = session.videoFrames else { return }
        while let (frame, serial) = frames.peek() {
            frames.pop()
            if serial != session.videoSerial { continue }
            present(frame, session: session)
            break
        }
    }

    /// While paused: when the picture on screen ends at or before item time `t` (a pause found the engine behind its
    /// clock), shows the picture at `t` once it is decoded; the ones between were due and count as dropped (pictures
    /// at or before the one on screen — shown from the picture cache — are only discarded). Returns whether the
    /// picture at `t` is still to come from the decoder. Does nothing while the picture on screen covers `t`.
    func catchUp(_ session: ItemSession, to t: CMTime) -> Bool {
        guard let last = lastPresented, let end = shownEnd, end <= t, let frames = session.videoFrames else {
            return false
        }
        var due: VideoFrame?
        while let (frame, serial) = frames.peek() {
            if serial != session.videoSerial {
                frames.pop()
                continue
            }
            let ft = session.itemTime(frame.pts)
            if ft > t { break }
            frames.pop()
            if ft <= last { continue }
            if due != nil { framesDropped += 1 }
            due = frame
        }
        if let due { present(due, session: session) }
        guard let end = shownEnd, end <= t else { return false }
        return frames.peek() == nil && !session.isVideoDecoderFinished
    }

    /// The item time of the next picture of the current serial, waiting for the decoder; nil when there is none.
    func nextFrameTime(_ session: ItemSession) -> CMTime? {
        guard let frames = session.videoFrames else { return nil }
        while !stopped() {
            if let (frame, serial) = frames.peek() {
                if serial != session.videoSerial {
                    frames.pop()
                    continue
                }
                return session.itemTime(frame.pts)
            }
            if session.isVideoDecoderFinished { return nil }
            _ = frames.waitUntilReadable(timeout: Self.pollInterval)
        }
        return nil
    }

    /// Forgets what was shown (an item change or a seek that is not silent).
    func resetPlayhead() {
        lastPresented = nil
        lastFrame = nil
    }

    /// The picture on screen when it covers item time `time` by its duration (a paused seek within it lands on it).
    func shownPicture(covering time: CMTime) -> VideoFrame? {
        guard let start = lastPresented, let end = shownEnd, start <= time, time < end else { return nil }
        return lastFrame
    }

    /// Where the picture on screen ends by its duration; nil without one (or without a usable duration).
    private var shownEnd: CMTime? {
        guard let start = lastPresented, lastFrameDuration.isNumeric, lastFrameDuration > .zero else { return nil }
        return start + lastFrameDuration
    }
}
