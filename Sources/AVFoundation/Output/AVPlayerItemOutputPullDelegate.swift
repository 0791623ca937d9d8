import Foundation

/// What a pull-model output (``AVPlayerItemVideoOutput``) tells its delegate, as Apple's
/// `AVPlayerItemOutputPullDelegate`. Both methods are called on the output's ``AVPlayerItemVideoOutput/delegateQueue``.
///
/// Differs from Apple: the methods are `@objc optional` there; Linux Swift has no optional protocol requirements,
/// so this protocol extension gives both a default that does nothing — implement only what you need. The
/// protocol refines `AnyObject` rather than `NSObjectProtocol`, so plain Swift classes can adopt it.
public protocol AVPlayerItemOutputPullDelegate: AnyObject {
    /// New media data is about to arrive after ``AVPlayerItemVideoOutput/requestNotificationOfMediaDataChange(withAdvanceInterval:)``:
    /// called once per request (here when the data arrives, or at once if it is already there).
    func outputMediaDataWillChange(_ sender: AVPlayerItemOutput)

    /// The sequence of samples was interrupted (a seek, the item leaving or becoming the current item): buffers
    /// queued for later display are stale.
    func outputSequenceWasFlushed(_ output: AVPlayerItemOutput)
}

extension AVPlayerItemOutputPullDelegate {
    /// Does nothing (Apple: an optional method not implemented).
    public func outputMediaDataWillChange(_ sender: AVPlayerItemOutput) {}

    /// Does nothing (Apple: an optional method not implemented).
    public func outputSequenceWasFlushed(_ output: AVPlayerItemOutput) {}
}
