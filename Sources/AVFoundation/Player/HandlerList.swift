import Foundation

/// A thread-safe list of handlers.
final class HandlerList: @unchecked Sendable {
    private let lock = NSLock()
    private var handlers: [@Sendable (AVPlayerItem) -> Void] = []
    func append(_ h: @escaping @Sendable (AVPlayerItem) -> Void) {
        lock.lock()
        handlers.append(h)
        lock.unlock()
    }
    var read: [@Sendable (AVPlayerItem) -> Void] {
        lock.lock()
        defer { lock.unlock() }
        return handlers
    }
}
