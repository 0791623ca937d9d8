import CoreGraphics
import Foundation

/// How a layer fits the video into its bounds (Apple's `AVLayerVideoGravity`, same raw values).
public struct AVLayerVideoGravity: RawRepresentable, Hashable, Sendable {
    /// The string Apple's framework uses for this value.
    public let rawValue: String

    /// Creates a value from its raw value.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The whole picture, aspect ratio kept, letterboxed or pillarboxed inside the bounds (the default).
    public static let resizeAspect = AVLayerVideoGravity(rawValue: "AVLayerVideoGravityResizeAspect")
    /// The bounds filled, aspect ratio kept: the picture is cropped.
    public static let resizeAspectFill = AVLayerVideoGravity(rawValue: "AVLayerVideoGravityResizeAspectFill")
    /// The bounds filled, the picture stretched.
    public static let resize = AVLayerVideoGravity(rawValue: "AVLayerVideoGravityResize")
}

/// The largest rect of `aspectRatio`'s proportions that fits in `boundingRect`, centred in it (Apple's
/// `AVMakeRect(aspectRatio:insideRect:)`). A zero or non-finite `aspectRatio`, or an empty `boundingRect`, gives a
/// zero-sized rect at the bounding rect's centre.
public func AVMakeRect(aspectRatio: CGSize, insideRect boundingRect: CGRect) -> CGRect {
    let (w, h) = (aspectRatio.width, aspectRatio.height)
    let bounds = boundingRect.standardized
    guard w > 0, h > 0, w.isFinite, h.isFinite, bounds.width > 0, bounds.height > 0 else {
        return CGRect(x: bounds.midX, y: bounds.midY, width: 0, height: 0)
    }
    let scale = min(bounds.width / w, bounds.height / h)
    let size = CGSize(width: w * scale, height: h * scale)
    return CGRect(
        x: bounds.minX + (bounds.width - size.width) / 2, y: bounds.minY + (bounds.height - size.height) / 2,
        width: size.width, height: size.height)
}
