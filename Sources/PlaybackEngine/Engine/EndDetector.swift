import CoreMedia

/// Decides when forward playback of the current item has ended (ffplay: every stream's decoder finished its serial
/// and its frame queue is empty), and whether the media was cut short of the duration its index states.
///
/// Stateless; engine thread.
struct EndDetector {
    /// Media ending more than this before an exact duration was truncated (seconds; covers the last frame's
    /// duration and encoder padding).
    static let truncationTolerance = 0.5
    /// Real time: a playhead this close to the end counts as there (seconds).
    static let endSlack = 0.002
    /// Real time: the last picture's time runs out before the end is reported, unless this much or more is left
    /// and the media stopped well short of it (seconds).
    static let lastPictureAllowance = 1.0

    /// What ``evaluate(_:at:end:forwardEnd:audioPlayed:renderer:realTime:heard:)`` found.
    enum Outcome: Equatable {
        /// Playback goes on.
        case playing
        /// The item ended at this item time (its end, or its forward end time).
        case ended(at: CMTime)
        /// The input stopped at `endedAt`, well before the exact duration `duration`.
        case truncated(endedAt: CMTime, duration: CMTime)
    }

    /// Whether playback of `session` at playhead `t` has ended. `end`: where the item ends (forward end time, else
    /// its duration); `forwardEnd`: the forward end time; `audioPlayed`: whether audio is heard (it must drain);
    /// `realTime`: let the last picture's time (and the device buffer) run out first. `heard`: the audio clock's time
    /// when audio is heard — the playback clock follows it without ever going back, so it may run ahead of it (a
    /// device thread starved on a loaded machine): the audio still to be heard is not cut at the end.
    func evaluate(
        _ session: ItemSession, at t: CMTime, end: CMTime?, forwardEnd: CMTime?, audioPlayed: Bool,
        renderer: AudioRenderer, realTime: Bool, heard: CMTime? = nil
    ) -> Outcome {
        let reachedEndTime = forwardEnd.map { t >= $0 } ?? false
        // At the end of the item's timeline a last partial audio frame past the (rounded) duration does not hold
        // playback up. Audio that is not heard (no device, unsupported rate) is discarded: its decoder finishing
        // is enough.
        let atEnd = end.map { t >= $0 } ?? false
        let heardAtEnd = end.map { (heard ?? t) >= $0 } ?? false
        let audioDone =
            !session.hasAudio
            || (audioPlayed
                ? renderer.isDrained || (heardAtEnd && session.isAudioDecoderFinished)
                : session.isAudioDecoderFinished)
        // Pictures past the end of the timeline can never be shown (a header stating a duration shorter than its
        // streams): at the end, video counts as done whatever its queue still holds, or playback would wait for ever
        // on a decoder blocked behind them.
        let videoDone = session.isVideoFinished || atEnd
        // With every track disabled the timeline still runs to its end.
        let mediaDone = session.hasVideo || session.hasAudio ? videoDone && audioDone : atEnd
        guard reachedEndTime || mediaDone else { return .playing }
        // How far the media got: the playhead, or further where skipped pictures (high rates) never came out.
        let mediaEnd = max(t, session.videoInputEnd ?? t)
        if !reachedEndTime, realTime, let end, t < end {
            let remaining = (end - t).seconds
            let mediaReachedEnd = (end - mediaEnd).seconds <= Self.truncationTolerance
            if remaining > Self.endSlack && (remaining < Self.lastPictureAllowance || mediaReachedEnd) {
                return .playing
            }
        }
        // The input ended well before the duration its index promised: it was cut short.
        let shortBy = end.map { ($0 - mediaEnd).seconds } ?? 0
        if !reachedEndTime, session.descriptor.durationIsExact, shortBy > Self.truncationTolerance {
            return .truncated(endedAt: t, duration: end ?? t)
        }
        return .ended(at: end ?? t)
    }
}
