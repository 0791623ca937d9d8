// Apple's AVKit: the system's playback user interface over AVFoundation. On Apple's systems `import AVKit` brings
// AVFoundation with it, and player code often imports AVKit for AVFoundation's names alone; here it does just that,
// and declares AVKit's own view and controller classes with Apple's spelling as unavailable (they are UIKit and
// AppKit views), so a port gets a clear message instead of "cannot find in scope".
@_exported import AVFoundation

/// Apple's UIKit view controller that shows a player's video with the system's controls. Unavailable: UIKit does
/// not exist on Linux.
@available(
    *, unavailable,
    message: "UIKit does not exist on Linux: show the video with AVPlayerLayer, or draw it from AVPlayerItemVideoOutput"
)
public final class AVPlayerViewController {
    /// Apple: a controller without a player.
    public init() {}
}

/// Apple's AppKit view that shows a player's video with the system's controls. Unavailable: AppKit does not exist
/// on Linux.
@available(
    *, unavailable,
    message:
        "AppKit does not exist on Linux: show the video with AVPlayerLayer, or draw it from AVPlayerItemVideoOutput"
)
public final class AVPlayerView {
    /// Apple: a view without a player.
    public init() {}
}

/// Apple's controller of picture-in-picture playback. Unavailable: there is no system picture-in-picture on Linux.
@available(*, unavailable, message: "Picture in picture does not exist on Linux")
public final class AVPictureInPictureController {
    /// Apple: whether the device supports picture in picture (it never does here).
    public static func isPictureInPictureSupported() -> Bool { false }
}

/// Apple's button that picks an AirPlay or Bluetooth route. Unavailable: no AirPlay or system route picker on Linux.
@available(*, unavailable, message: "AirPlay and the system route picker do not exist on Linux")
public final class AVRoutePickerView {
    /// Apple: a route picker.
    public init() {}
}
