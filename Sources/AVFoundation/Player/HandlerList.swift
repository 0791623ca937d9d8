import Foundation
import OAVFLocking

/// A thread-safe list of handlers.
final class HandlerList: @unchecked Sendable {
    /// The handlers, in the order added. Appended by whichever thread registers one, read (copied out, never called
    /// under the lock) by the thread that runs them. Not an engine command: the list belongs to the public object
    /// that registers handlers, not to playback state.
    private let handlers = Locked<[@Sendable (AVPlayerItem) -> Void]>([])
    func append(_ h: @escaping @Sendable (AVPlayerItem) -> Void) {
        handlers.withLock { $0.append(h) }
    }
    var read: [@Sendable (AVPlayerItem) -> Void] {
        handlers.current
    }
}
