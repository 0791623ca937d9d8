import CoreMedia

/// Follows the playhead of the current item (timed-text and metadata outputs): told where playback is after every
/// engine step, and when the sequence is interrupted.
///
/// Threads: both methods are called on the engine thread with no engine lock held; they must return quickly (hand
/// work to another queue).
package protocol PlayheadSink: AnyObject, Sendable {
    /// Playback of `session` is at item time `itemTime`, moving at `rate` (0 while paused). Called after each step
    /// while the item is ready and no seek is in flight; not called again while nothing changed.
    func playheadMoved(to itemTime: CMTime, rate: Float, session: ItemSession)
    /// The sequence was interrupted (a seek, an item change): the next ``playheadMoved(to:rate:session:)`` starts
    /// a new one. `session` is the item current now.
    func flush(session: ItemSession?)
}
