import Foundation

// AVAudioSession's notifications and their userInfo keys, with Apple's names and string values.
//
// Which fire on Linux:
// - routeChangeNotification: yes — `.newDeviceAvailable` when SDL reports SDL_AUDIODEVICEADDED, `.oldDeviceUnavailable`
//   when it reports SDL_AUDIODEVICEREMOVED (an open device lost: unplugged, its server gone, or the `disk` driver
//   failing to write), `.categoryChange` when the category changes while the session is active.
// - interruptionNotification, silenceSecondaryAudioHintNotification, mediaServicesWereLostNotification,
//   mediaServicesWereResetNotification: never. Linux has no arbiter that takes the audio away from one program for
//   another (a phone call, Siri, an alarm): the sound server (PipeWire, PulseAudio) mixes every stream, and SDL 2
//   reports no corking or ducking requests; nor does it know of other programs' "primary" audio; and no media server
//   process is lost and reset under the app (a sound server that dies is reported by SDL as the device being
//   removed, which posts routeChangeNotification with `.oldDeviceUnavailable`).

extension NSNotification.Name {
    /// Apple's spelling of ``AVAudioSession/interruptionNotification``.
    public static let AVAudioSessionInterruption = NSNotification.Name("AVAudioSessionInterruptionNotification")
    /// Apple's spelling of ``AVAudioSession/routeChangeNotification``.
    public static let AVAudioSessionRouteChange = NSNotification.Name("AVAudioSessionRouteChangeNotification")
    /// Apple's spelling of ``AVAudioSession/mediaServicesWereLostNotification``.
    public static let AVAudioSessionMediaServicesWereLost = NSNotification.Name(
        "AVAudioSessionMediaServicesWereLostNotification")
    /// Apple's spelling of ``AVAudioSession/mediaServicesWereResetNotification``.
    public static let AVAudioSessionMediaServicesWereReset = NSNotification.Name(
        "AVAudioSessionMediaServicesWereResetNotification")
    /// Apple's spelling of ``AVAudioSession/silenceSecondaryAudioHintNotification``.
    public static let AVAudioSessionSilenceSecondaryAudioHint = NSNotification.Name(
        "AVAudioSessionSilenceSecondaryAudioHintNotification")
}

extension AVAudioSession {
    /// Posted when the system interrupts the session. Never posted on Linux: no arbiter takes the audio device from
    /// one program for another (the sound server mixes every stream).
    public static let interruptionNotification = NSNotification.Name.AVAudioSessionInterruption
    /// Posted (object: the session, on a private queue) when the route changed;
    /// `userInfo[AVAudioSessionRouteChangeReasonKey]` is the reason's raw value (a `UInt`) and
    /// `userInfo[AVAudioSessionRouteChangePreviousRouteKey]` the route before. See ``RouteChangeReason`` for the
    /// reasons posted on Linux.
    public static let routeChangeNotification = NSNotification.Name.AVAudioSessionRouteChange
    /// Posted when the media server became unavailable. Never posted on Linux (no media server; a sound server
    /// that dies is a device removal, see ``routeChangeNotification``).
    public static let mediaServicesWereLostNotification = NSNotification.Name.AVAudioSessionMediaServicesWereLost
    /// Posted when the media server restarted. Never posted on Linux, for the same reason.
    public static let mediaServicesWereResetNotification = NSNotification.Name.AVAudioSessionMediaServicesWereReset
    /// Posted when another app's primary audio starts or stops. Never posted on Linux: nothing reports other
    /// programs' audio.
    public static let silenceSecondaryAudioHintNotification = NSNotification.Name
        .AVAudioSessionSilenceSecondaryAudioHint
}

/// `userInfo` key of `interruptionNotification`: an ``AVAudioSession/InterruptionType`` raw value (`UInt`).
public let AVAudioSessionInterruptionTypeKey = "AVAudioSessionInterruptionTypeKey"
/// `userInfo` key of an ended interruption: ``AVAudioSession/InterruptionOptions`` raw value (`UInt`).
public let AVAudioSessionInterruptionOptionKey = "AVAudioSessionInterruptionOptionKey"
/// `userInfo` key of `interruptionNotification`: an ``AVAudioSession/InterruptionReason`` raw value (`UInt`).
public let AVAudioSessionInterruptionReasonKey = "AVAudioSessionInterruptionReasonKey"
/// `userInfo` key of `interruptionNotification`: whether the app was suspended (`Bool`).
public let AVAudioSessionInterruptionWasSuspendedKey = "AVAudioSessionInterruptionWasSuspendedKey"
/// `userInfo` key of `routeChangeNotification`: an ``AVAudioSession/RouteChangeReason`` raw value (`UInt`).
public let AVAudioSessionRouteChangeReasonKey = "AVAudioSessionRouteChangeReasonKey"
/// `userInfo` key of `routeChangeNotification`: the ``AVAudioSessionRouteDescription`` before the change.
public let AVAudioSessionRouteChangePreviousRouteKey = "AVAudioSessionRouteChangePreviousRouteKey"
/// `userInfo` key of `silenceSecondaryAudioHintNotification`: an ``AVAudioSession/SilenceSecondaryAudioHintType`` raw
/// value (`UInt`).
public let AVAudioSessionSilenceSecondaryAudioHintTypeKey = "AVAudioSessionSilenceSecondaryAudioHintTypeKey"
