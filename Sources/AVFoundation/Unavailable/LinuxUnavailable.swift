import Foundation

// Apple API this project cannot provide on Linux, declared with Apple's spelling so that a port gets a clear
// compile-time message instead of "cannot find in scope". The README lists them.

// MARK: Core Animation

/// Apple's layer that times its sublayers' animations by a player item. Unavailable: no Core Animation on Linux.
@available(
    *, unavailable,
    message:
        "Core Animation does not exist on Linux; drive your drawing from AVPlayerItem.timebase or a periodic time observer"
)
public final class AVSynchronizedLayer {
    public init(playerItem: AVPlayerItem) {}
}

/// Apple's layer that displays sample buffers. Unavailable: no Core Animation on Linux.
@available(
    *, unavailable, message: "Core Animation does not exist on Linux; play media with AVPlayer and AVPlayerLayer"
)
public final class AVSampleBufferDisplayLayer {
    public init() {}
}

// MARK: AirPlay

/// Apple's detector of AirPlay routes. Unavailable: no AirPlay on Linux.
@available(*, unavailable, message: "AirPlay and external playback do not exist on Linux")
public final class AVRouteDetector {
    public init() {}
}

/// Apple's AirPlay output context. Unavailable: no AirPlay on Linux.
@available(*, unavailable, message: "AirPlay and external playback do not exist on Linux")
public final class AVOutputContext {}

extension AVPlayer {
    /// Apple: whether external playback is used while an external screen is active. Unavailable: no AirPlay.
    @available(*, unavailable, message: "AirPlay and external playback do not exist on Linux")
    public var usesExternalPlaybackWhileExternalScreenIsActive: Bool {
        get { false }
        set {}
    }

    /// Apple: the video gravity on an external screen. Unavailable: no AirPlay.
    @available(*, unavailable, message: "AirPlay and external playback do not exist on Linux")
    public var externalPlaybackVideoGravity: AVLayerVideoGravity {
        get { .resizeAspect }
        set {}
    }
}

// MARK: FairPlay and resource loading

/// Apple's FairPlay Streaming key session. Unavailable: no FairPlay on Linux.
@available(
    *, unavailable, message: "FairPlay Streaming is not available in OpenAVFoundation"
)
public final class AVContentKeySession {
    public init(keySystem: AVContentKeySystem) {}
}

/// Apple's key request of a content key session. Unavailable: no FairPlay on Linux.
@available(
    *, unavailable, message: "FairPlay Streaming is not available in OpenAVFoundation"
)
public final class AVContentKeyRequest {}

/// Apple's key response of a content key session. Unavailable: no FairPlay on Linux.
@available(
    *, unavailable, message: "FairPlay Streaming is not available in OpenAVFoundation"
)
public final class AVContentKeyResponse {}

/// Apple's content key session delegate. Unavailable: no FairPlay on Linux.
@available(
    *, unavailable, message: "FairPlay Streaming is not available in OpenAVFoundation"
)
public protocol AVContentKeySessionDelegate: AnyObject {}

/// Apple's key systems (`.fairPlayStreaming`, `.clearKey`, …). Unavailable: no FairPlay on Linux.
@available(
    *, unavailable, message: "FairPlay Streaming is not available in OpenAVFoundation"
)
public struct AVContentKeySystem: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}
