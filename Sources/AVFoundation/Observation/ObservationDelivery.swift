import Dispatch

/// Where an ``ObservationHub`` runs key-value change handlers of changes the engine makes (see
/// ``ChangeOrigin``; changes the app makes reach handlers synchronously on the app's thread).
///
/// Apple serialises AVPlayer / AVPlayerItem KVO notifications of playback state on the main queue,
/// so `.main` is the default. A command-line program must run the main queue (`dispatchMain()` or `RunLoop.main.run()`)
/// for them to arrive.
package enum ObservationDelivery: Sendable {
    /// Asynchronously on `queue`, in the order the changes were published. Use a serial queue:
    /// a concurrent queue would run notifications out of order.
    case queue(DispatchQueue)
    /// On the thread that published the change, before `withMutation` / `publish` returns (after
    /// the mutation; prior notifications before it). For engine tests: notifications from
    /// different threads are not ordered with respect to each other.
    case synchronous

    /// Asynchronously on the main queue (Apple's behaviour).
    package static var main: ObservationDelivery { .queue(.main) }
}
