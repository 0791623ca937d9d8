/// Where an image's alpha channel is and whether its colours are premultiplied, as Apple's `CGImageAlphaInfo`.
public enum CGImageAlphaInfo: UInt32, Sendable {
    case none = 0
    case premultipliedLast = 1
    case premultipliedFirst = 2
    case last = 3
    case first = 4
    case noneSkipLast = 5
    case noneSkipFirst = 6
    case alphaOnly = 7
}

/// The byte order of an image's pixels, as Apple's `CGImageByteOrderInfo`.
public enum CGImageByteOrderInfo: UInt32, Sendable {
    case orderMask = 0x7000
    case orderDefault = 0
    case order16Little = 0x1000
    case order32Little = 0x2000
    case order16Big = 0x3000
    case order32Big = 0x4000
}

/// An image's pixel layout: alpha placement in the low five bits, byte order above (Apple's `CGBitmapInfo`).
public struct CGBitmapInfo: OptionSet, Sendable {
    public let rawValue: UInt32
    /// A layout from its raw bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The bits holding a `CGImageAlphaInfo`.
    public static let alphaInfoMask = CGBitmapInfo(rawValue: 0x1F)
    /// Components are floats.
    public static let floatInfoMask = CGBitmapInfo(rawValue: 0xF00)
    /// Components are floats.
    public static let floatComponents = CGBitmapInfo(rawValue: 1 << 8)
    /// The bits holding the byte order.
    public static let byteOrderMask = CGBitmapInfo(rawValue: 0x7000)
    /// The default byte order (big-endian components in memory order).
    public static let byteOrderDefault = CGBitmapInfo([])
    /// 16-bit little-endian.
    public static let byteOrder16Little = CGBitmapInfo(rawValue: 1 << 12)
    /// 32-bit little-endian: with `noneSkipFirst`/`premultipliedFirst`, B G R A in memory.
    public static let byteOrder32Little = CGBitmapInfo(rawValue: 2 << 12)
    /// 16-bit big-endian.
    public static let byteOrder16Big = CGBitmapInfo(rawValue: 3 << 12)
    /// 32-bit big-endian: components in their named order in memory.
    public static let byteOrder32Big = CGBitmapInfo(rawValue: 4 << 12)
}

/// How colours outside a destination's gamut are mapped, as Apple's `CGColorRenderingIntent` (kept, not applied).
public enum CGColorRenderingIntent: Int32, Sendable {
    case defaultIntent = 0
    case absoluteColorimetric = 1
    case relativeColorimetric = 2
    case perceptual = 3
    case saturation = 4
}
