import Foundation

/// The thread-local mark of engine-made changes (a nesting depth; zero means "not the engine").
private let engineDepthKey: pthread_key_t = {
    var key = pthread_key_t()
    let result = pthread_key_create(&key, nil)
    precondition(result == 0, "pthread_key_create failed: \(result)")
    return key
}()

/// Who makes the changes published on the current thread, which decides where key-value observers hear of them
/// (Apple's KVO semantics):
/// - the app (the default): a setter or method the app called (`rate`, `insert(_:after:)`, an item's end time …).
///   Observers are called synchronously on the calling thread, before the call returns.
/// - the engine: a change the playback engine reports (status, `timeControlStatus`, buffering, end of item …),
///   published inside ``engine(_:)``. Observers are called on their hub's ``ObservationDelivery`` (the main queue),
///   in order.
///
/// Swift Observation (`withObservationTracking`, `Observations`) is told at once either way.
package enum ChangeOrigin {
    /// Runs `body` with the changes it publishes on this thread marked as the engine's (nesting is allowed).
    package static func engine<T>(_ body: () throws -> T) rethrows -> T {
        let depth = Int(bitPattern: pthread_getspecific(engineDepthKey))
        pthread_setspecific(engineDepthKey, UnsafeRawPointer(bitPattern: depth + 1))
        defer { pthread_setspecific(engineDepthKey, UnsafeRawPointer(bitPattern: depth)) }
        return try body()
    }

    /// Whether the change being published on this thread is the engine's.
    package static var isEngine: Bool {
        pthread_getspecific(engineDepthKey) != nil
    }
}
