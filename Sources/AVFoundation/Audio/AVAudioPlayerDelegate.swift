import Foundation

/// Responds to an ``AVAudioPlayer``'s end of playback and decoding errors (AVFAudio's protocol, brought by
/// `import AVFoundation` as on Apple's systems).
///
/// Every method is optional (default implementations do nothing). Calls come on the main queue, as Apple's protocol
/// is `@MainActor`: a program without a run loop on its main thread (a command-line tool) must run one
/// (`RunLoop.main.run()`, `dispatchMain()`) to hear them.
@MainActor
public protocol AVAudioPlayerDelegate: NSObjectProtocol {
    /// Called once when the sound finished playing: `flag` is true when it played to its end (every loop), false
    /// when a decoding error stopped it. Not called for ``AVAudioPlayer/stop()`` or ``AVAudioPlayer/pause()``.
    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool)

    /// Called when the player could not decode (or read) its media during playback; `error` says what happened
    /// (an `NSError` in `AVFoundationErrorDomain`).
    func audioPlayerDecodeErrorDidOccur(_ player: AVAudioPlayer, error: (any Error)?)
}

extension AVAudioPlayerDelegate {
    /// Does nothing (the method is optional).
    public func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) {}

    /// Does nothing (the method is optional).
    public func audioPlayerDecodeErrorDidOccur(_ player: AVAudioPlayer, error: (any Error)?) {}
}
