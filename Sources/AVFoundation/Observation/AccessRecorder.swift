import Foundation

/// The thread-local slot holding the innermost active ``AccessRecorder`` (one per process).
private let accessRecorderKey: pthread_key_t = {
    var key = pthread_key_t()
    let result = pthread_key_create(&key, nil)
    precondition(result == 0, "pthread_key_create failed: \(result)")
    return key
}()

/// Records which observable properties a key path reads, the way Swift Observation's
/// `withObservationTracking` does: every observable getter calls `ObservationHub.access(_:keyPath:)`,
/// which reports `(subscriptions, keyPath)` to the recorder active on the current thread.
///
/// This is how a key-value observer learns what it depends on. It makes `\.status` observed on an
/// `AVQueuePlayer` match the `\AVPlayer.status` the player publishes (key paths with different root
/// types never compare equal), makes computed properties depend on what they read, and makes a
/// compound path such as `\.currentItem?.status` depend on both objects.
///
/// Thread-confined: created, filled and read on one thread.
final class AccessRecorder {
    /// One property read while recording.
    struct Access {
        let subscriptions: KeyValueSubscriptions
        let keyPath: AnyKeyPath
    }

    /// What was read, first read first, without duplicates.
    private(set) var accesses: [Access] = []

    private init() {}

    /// Runs `body` with a fresh recorder installed on this thread (nesting restores the outer one)
    /// and returns its result with the properties it read.
    static func recording<T>(_ body: () throws -> T) rethrows -> (value: T, accesses: [Access]) {
        let recorder = AccessRecorder()
        let previous = pthread_getspecific(accessRecorderKey)
        pthread_setspecific(accessRecorderKey, Unmanaged.passUnretained(recorder).toOpaque())
        defer { pthread_setspecific(accessRecorderKey, previous) }
        let value = try withExtendedLifetime(recorder) { try body() }
        return (value, recorder.accesses)
    }

    /// Reports a read to the recorder active on this thread, if any (cheap when none is).
    static func noteAccess(_ subscriptions: KeyValueSubscriptions, _ keyPath: AnyKeyPath) {
        guard let slot = pthread_getspecific(accessRecorderKey) else { return }
        let recorder = Unmanaged<AccessRecorder>.fromOpaque(slot).takeUnretainedValue()
        if !recorder.accesses.contains(where: { $0.subscriptions === subscriptions && $0.keyPath == keyPath }) {
            recorder.accesses.append(Access(subscriptions: subscriptions, keyPath: keyPath))
        }
    }
}
