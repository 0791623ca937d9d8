import Foundation
import PlaybackEngine

// Video composition on a player item: the public properties, and installing the composer in the engine session.
extension AVPlayerItem {
    /// How the item's video is composed before it is shown (Apple's `videoComposition`); nil shows the decoded
    /// pictures. The item keeps a copy; set it again after changing the composition. With a composition, every
    /// picture the player presents is composed (see ``AVVideoComposition``) before the item's video outputs and
    /// layer get it. Observable (`observe(\.videoComposition)`, Swift Observation).
    public var videoComposition: AVVideoComposition? {
        get {
            observationHub.access(self, keyPath: \.videoComposition)
            return videoCompositionState.composition
        }
        set {
            let copy = newValue?.copy() as? AVVideoComposition
            observationHub.withMutation(of: self, keyPaths: [\.videoComposition, \.customVideoCompositor]) {
                _ = videoCompositionState.replace(with: copy)
            }
            if let (session, engine) = sessionAndEngine() { installVideoCompositor(on: session, engine: engine) }
        }
    }

    /// The instance of the composition's ``AVVideoComposition/customVideoCompositorClass`` the item uses, made when
    /// the composition is set; nil with the built-in compositor or no composition. Setting a composition naming
    /// the same class keeps the same instance.
    public var customVideoCompositor: (any AVVideoCompositing)? {
        observationHub.access(self, keyPath: \.customVideoCompositor)
        return videoCompositionState.compositor
    }

    /// Whether seeks should wait for composed pictures before completing (Apple's
    /// `seekingWaitsForVideoCompositionRendering`). Stored only: composition here is synchronous with
    /// presentation, so a seek's first picture is always composed when shown.
    public var seekingWaitsForVideoCompositionRendering: Bool {
        get { videoCompositionState.seekingWaitsForVideoCompositionRendering }
        set { videoCompositionState.seekingWaitsForVideoCompositionRendering = newValue }
    }

    /// Gives `session` the current composition's composer (or removes it), through `engine`'s commands.
    func installVideoCompositor(on session: ItemSession, engine: PlayerEngine?) {
        guard let engine else { return }
        let state = videoCompositionState
        state.installLock.withLock {
            guard let renderer = state.renderer else {
                engine.configure(session, .videoCompositor(nil))
                return
            }
            let asset = self.asset
            let compose: @Sendable (VideoFrame, CMTime) -> VideoFrame? = { [weak session] frame, time in
                guard let session else { return frame }
                let stream = session.descriptor.videoStream
                let trackID =
                    asset.loader.loaded?.tracks.first { $0.streamIndex == stream }?.trackID
                    ?? kCMPersistentTrackID_Invalid
                return renderer.compose(frame, at: time, trackID: trackID)
            }
            engine.configure(session, .videoCompositor(compose))
        }
    }
}
