import CoreMedia

/// Receives presented video frames (outputs, layers, tests).
///
/// Threads: both methods are called on the engine thread, with no lock of the engine held; an implementation may
/// call back into the engine (commands are queued). They must return quickly: the engine presents the next picture
/// only after every sink returned.
package protocol VideoFrameSink: AnyObject, Sendable {
    /// `frame` is shown from item time `itemTime` on.
    func present(_ frame: VideoFrame, itemTime: CMTime, session: ItemSession)
    /// The sequence was interrupted (a seek, an item change): drop anything queued. `session` is the item current
    /// now.
    func flush(session: ItemSession?)
    /// Seconds (of real time) before a picture is due that this sink may already receive it, in real-time playback
    /// forwards; 0: only when due. A video output that a display link asks about the next refresh wants a lead. Read
    /// once, when the sink is added.
    var presentationLeadTime: Double { get }
}

extension VideoFrameSink {
    /// Only when due.
    package var presentationLeadTime: Double { 0 }
}

/// How the engine keeps time and where audio goes.
package struct EngineConfiguration: Sendable {
    /// A virtual clock (untimed or manual); nil plays in real time on the host clock.
    package var virtualClock: VirtualClock?
    /// Makes the audio sink. Real time: normally an SDL device (nil or a failing open means no
    /// device: the engine runs on the system clock). Virtual clocks need a non-real-time sink.
    package var audioSink: @Sendable () -> (any AudioSink)?

    package init(virtualClock: VirtualClock? = nil, audioSink: @escaping @Sendable () -> (any AudioSink)?) {
        self.virtualClock = virtualClock
        self.audioSink = audioSink
    }
}
