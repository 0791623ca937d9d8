import Foundation

/// A custom video compositor (Apple's `AVVideoCompositing`): the item makes one instance of the composition's
/// ``AVVideoComposition/customVideoCompositorClass``, tells it the render context, and asks it for every picture.
///
///     final class Inverter: NSObject, AVVideoCompositing {
///         let sourcePixelBufferAttributes: [String: any Sendable]? = [
///             kCVPixelBufferPixelFormatTypeKey: kCVPixelFormatType_32BGRA]
///         let requiredPixelBufferAttributesForRenderContext: [String: any Sendable] = [
///             kCVPixelBufferPixelFormatTypeKey: kCVPixelFormatType_32BGRA]
///         func renderContextChanged(_ newRenderContext: AVVideoCompositionRenderContext) {}
///         func startRequest(_ request: AVAsynchronousVideoCompositionRequest) {
///             … request.finish(withComposedVideoFrame: out)
///         }
///     }
///
/// Requests arrive one at a time on a private serial queue; finish each exactly once, on any thread (further calls
/// are ignored). The player waits up to one second for each (the engine thread blocks meanwhile); a picture whose
/// request is not finished by then is not shown.
///
/// Differs from Apple: the protocol requires `init()` (Swift on Linux cannot create an instance from a class
/// object otherwise): a `final` class gets it from `NSObject`; a non-final class must declare
/// `required override init()`. The optional requirements are regular ones with default implementations.
public protocol AVVideoCompositing: NSObjectProtocol, Sendable {
    /// Creates the compositor; the item calls it when a composition naming the class is set.
    init()

    /// The formats the compositor accepts for source frames: `kCVPixelBufferPixelFormatTypeKey` (a number or an
    /// array; the first format the player can produce is used). Nil or an unknown format: decoded frames as they are.
    var sourcePixelBufferAttributes: [String: any Sendable]? { get }

    /// The attributes of the buffers ``AVVideoCompositionRenderContext/newPixelBuffer()`` vends: at least
    /// `kCVPixelBufferPixelFormatTypeKey`; width and height come from the render context.
    var requiredPixelBufferAttributesForRenderContext: [String: any Sendable] { get }

    /// The render context changed (before the first request, and when the composition is replaced).
    func renderContextChanged(_ newRenderContext: AVVideoCompositionRenderContext)

    /// Composes one picture: finish `asyncVideoCompositionRequest` with a buffer, an error, or as cancelled.
    func startRequest(_ asyncVideoCompositionRequest: AVAsynchronousVideoCompositionRequest)

    /// Finish every pending request soon, preferably with `finishCancelledRequest()` (called when a request timed
    /// out, and when the compositor is replaced).
    func cancelAllPendingVideoCompositionRequests()

    /// Whether wide-colour source frames are accepted (no effect here).
    var supportsWideColorSourceFrames: Bool { get }

    /// Whether HDR source frames are accepted (no effect here).
    var supportsHDRSourceFrames: Bool { get }

    /// Whether the compositor can conform source colour itself (no effect here).
    var canConformColorOfSourceFrames: Bool { get }
}

extension AVVideoCompositing {
    /// Does nothing (Apple's optional requirement, defaulted).
    public func cancelAllPendingVideoCompositionRequests() {}

    /// False (Apple's optional requirement, defaulted).
    public var supportsWideColorSourceFrames: Bool { false }

    /// False (Apple's optional requirement, defaulted).
    public var supportsHDRSourceFrames: Bool { false }

    /// False (Apple's optional requirement, defaulted).
    public var canConformColorOfSourceFrames: Bool { false }
}
