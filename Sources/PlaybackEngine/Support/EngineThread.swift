#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Marks engine threads, so that engine-thread-only code checks where it runs in debug builds (swift-nio's
/// `assertInEventLoop`): a call from another thread fails a test instead of racing. Release builds check nothing.
package enum EngineThread {
    /// A thread-specific marker: non-nil on a thread that runs an engine's loop.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let result = pthread_key_create(&key, nil)
        precondition(result == 0, "pthread_key_create failed: \(result)")
        return key
    }()

    /// Marks the calling thread as an engine thread (``EngineCore/run()``, first thing).
    static func markCurrent() {
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
    }

    /// Whether the caller runs on an engine thread.
    package static var isCurrent: Bool { pthread_getspecific(key) != nil }

    /// Traps in debug builds unless the caller runs on an engine thread.
    @inline(__always)
    static func assertCurrent(_ function: StaticString = #function) {
        assert(isCurrent, "\(function) is engine-thread-only: post a command instead")
    }
}
