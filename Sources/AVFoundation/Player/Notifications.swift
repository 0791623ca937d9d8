import Foundation

// Apple's notification names, in both spellings (the values are identical, as Apple's are).

extension NSNotification.Name {
    public static let AVPlayerItemDidPlayToEndTime = NSNotification.Name("AVPlayerItemDidPlayToEndTimeNotification")
    public static let AVPlayerItemFailedToPlayToEndTime = NSNotification.Name(
        "AVPlayerItemFailedToPlayToEndTimeNotification")
    public static let AVPlayerItemPlaybackStalled = NSNotification.Name("AVPlayerItemPlaybackStalledNotification")
    public static let AVPlayerItemTimeJumped = NSNotification.Name("AVPlayerItemTimeJumpedNotification")
    public static let AVPlayerItemNewAccessLogEntry = NSNotification.Name("AVPlayerItemNewAccessLogEntryNotification")
    public static let AVPlayerItemNewErrorLogEntry = NSNotification.Name("AVPlayerItemNewErrorLogEntryNotification")
    public static let AVPlayerItemRecommendedTimeOffsetFromLiveDidChange = NSNotification.Name(
        "AVPlayerItemRecommendedTimeOffsetFromLiveDidChangeNotification")
}

/// `userInfo` key of `AVPlayerItemFailedToPlayToEndTime`: the `NSError`.
public let AVPlayerItemFailedToPlayToEndTimeErrorKey = "AVPlayerItemFailedToPlayToEndTimeErrorKey"

extension AVPlayerItem {
    /// Posted (object: the item) when the item played to its end time. May arrive on any thread.
    public static let didPlayToEndTimeNotification = NSNotification.Name.AVPlayerItemDidPlayToEndTime
    /// Posted when the item failed to play to its end; `userInfo[AVPlayerItemFailedToPlayToEndTimeErrorKey]`.
    public static let failedToPlayToEndTimeNotification = NSNotification.Name.AVPlayerItemFailedToPlayToEndTime
    /// Posted when media did not arrive in time to continue playback.
    public static let playbackStalledNotification = NSNotification.Name.AVPlayerItemPlaybackStalled
    /// Posted when ``recommendedTimeOffsetFromLive`` changed (when a live item becomes ready, and after a stall).
    public static let recommendedTimeOffsetFromLiveDidChangeNotification =
        NSNotification.Name.AVPlayerItemRecommendedTimeOffsetFromLiveDidChange
    /// Posted when the item's current time changed discontinuously (seeks, loops).
    public static let timeJumpedNotification = NSNotification.Name.AVPlayerItemTimeJumped
    /// `userInfo` key of `timeJumpedNotification` naming the coordinated-playback participant that caused the jump
    /// (never present here: there is no coordinated playback).
    public static let timeJumpedOriginatingParticipantKey = "AVPlayerItemTimeJumpedOriginatingParticipantKey"
    /// Posted when the item adds an access-log entry.
    public static let newAccessLogEntryNotification = NSNotification.Name.AVPlayerItemNewAccessLogEntry
    /// Posted when the item adds an error-log entry.
    public static let newErrorLogEntryNotification = NSNotification.Name.AVPlayerItemNewErrorLogEntry
    /// Posted when `currentMediaSelection` changed.
    public static let mediaSelectionDidChangeNotification = NSNotification.Name(
        "AVPlayerItemMediaSelectionDidChangeNotification")
}

extension AVPlayer {
    /// Posted when the rate changed; `userInfo[rateDidChangeReasonKey]` says why.
    public static let rateDidChangeNotification = NSNotification.Name("AVPlayerRateDidChangeNotification")
    /// The `userInfo` key of a rate change's reason (an ``AVPlayer/RateDidChangeReason``).
    public static let rateDidChangeReasonKey = "AVPlayerRateDidChangeReasonKey"
    /// The `userInfo` key of the participant that changed the rate (coordinated playback; not posted here).
    public static let rateDidChangeOriginatingParticipantKey = "AVPlayerRateDidChangeOriginatingParticipantKey"

    /// Why the rate changed (Apple's raw values).
    public struct RateDidChangeReason: RawRepresentable, Hashable, Sendable {
        /// The string Apple's framework uses for this value.
        public let rawValue: String
        /// Creates a value from its raw value.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The app set the rate.
        public static let setRateCalled = RateDidChangeReason(rawValue: "AVPlayerRateDidChangeReasonSetRateCalled")
        /// Setting the rate failed.
        public static let setRateFailed = RateDidChangeReason(rawValue: "AVPlayerRateDidChangeReasonSetRateFailed")
        /// An audio-session interruption changed the rate (not posted here).
        public static let audioSessionInterrupted = RateDidChangeReason(
            rawValue: "AVPlayerRateDidChangeReasonAudioSessionInterrupted")
        /// The app went to the background (not posted here).
        public static let appBackgrounded = RateDidChangeReason(rawValue: "AVPlayerRateDidChangeReasonAppBackgrounded")
    }
}
