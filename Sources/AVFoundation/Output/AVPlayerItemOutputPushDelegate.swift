import Foundation

/// What a push-model output (``AVPlayerItemLegibleOutput``) tells its delegate besides its data, as Apple's
/// `AVPlayerItemOutputPushDelegate`. Called on the output's delegate queue.
///
/// Differs from Apple: the method is `@objc optional` there; Linux Swift has no optional protocol requirements, so
/// a protocol extension gives a default that does nothing. The protocol refines `AnyObject` rather than
/// `NSObjectProtocol`, so plain Swift classes can adopt it.
public protocol AVPlayerItemOutputPushDelegate: AnyObject {
    /// The sequence of samples was interrupted (a seek, the item leaving or becoming the current item, another
    /// subtitle option selected): whatever was delivered before is no longer shown.
    func outputSequenceWasFlushed(_ output: AVPlayerItemOutput)
}

extension AVPlayerItemOutputPushDelegate {
    /// Does nothing (Apple: an optional method not implemented).
    public func outputSequenceWasFlushed(_ output: AVPlayerItemOutput) {}
}
