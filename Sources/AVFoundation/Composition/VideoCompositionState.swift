import Foundation
import OAVFLocking

/// An item's video composition and what renders it (kept apart from the item's main state so composition has its
/// own lock and file).
///
/// Thread-safe: a lock guards every value.
final class VideoCompositionState: @unchecked Sendable {
    /// Guards the composition and its renderer: the app sets the item's `videoComposition` on any thread, the engine
    /// thread reads the renderer when it installs it in a session. Not an engine command: the item keeps what the app
    /// set (Apple's API stores it), and the engine reads it once per session.
    private let lock = ConditionLock()
    /// Serialises ``replace(with:)`` calls (two setters racing keep one consistent compositor). App threads only.
    private let replaceLock = ConditionLock()
    /// Held while a renderer is read and installed in a session (a command posted to the engine under it), so the
    /// newest one is installed last; taken by the threads that set the composition or start a session. Lock order:
    /// this lock or `replaceLock`, then `lock`.
    let installLock = ConditionLock()
    /// Guarded by `lock`.
    private var _composition: AVVideoComposition?
    private var _renderer: VideoCompositionRenderer?
    private var _seekingWaitsForVideoCompositionRendering = false

    /// The item's copy of its composition.
    var composition: AVVideoComposition? { lock.withLock { _composition } }
    /// What composes pictures for it (nil without a composition).
    var renderer: VideoCompositionRenderer? { lock.withLock { _renderer } }
    /// The custom compositor instance, if the composition names a class.
    var compositor: (any AVVideoCompositing)? { lock.withLock { _renderer?.compositor } }

    /// Stored for ``AVPlayerItem/seekingWaitsForVideoCompositionRendering``.
    var seekingWaitsForVideoCompositionRendering: Bool {
        get { lock.withLock { _seekingWaitsForVideoCompositionRendering } }
        set { lock.withLock { _seekingWaitsForVideoCompositionRendering = newValue } }
    }

    /// Replaces the composition (nil: none); a custom compositor of the same class as the current one is kept,
    /// another is asked to cancel its pending requests. Returns the new renderer.
    func replace(with composition: AVVideoComposition?) -> VideoCompositionRenderer? {
        replaceLock.withLock { replaceLocked(with: composition) }
    }

    private func replaceLocked(with composition: AVVideoComposition?) -> VideoCompositionRenderer? {
        let old = lock.withLock { _renderer?.compositor }
        var compositor: (any AVVideoCompositing)?
        if let cls = composition?.customVideoCompositorClass {
            if let old, ObjectIdentifier(type(of: old)) == ObjectIdentifier(cls) {
                compositor = old
            } else {
                compositor = cls.init()
            }
        }
        if let old, compositor !== old { old.cancelAllPendingVideoCompositionRequests() }
        let renderer = composition.map { VideoCompositionRenderer(composition: $0, compositor: compositor) }
        lock.withLock {
            _composition = composition
            _renderer = renderer
        }
        return renderer
    }
}
