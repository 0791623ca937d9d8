/// A colour space's family, as Apple's `CGColorSpaceModel`.
public enum CGColorSpaceModel: Int32, Sendable {
    case unknown = -1
    case monochrome = 0
    case rgb = 1
    case cmyk = 2
    case lab = 3
    case deviceN = 4
    case indexed = 5
    case pattern = 6
    case XYZ = 7
}

/// How colour values are interpreted, as Apple's `CGColorSpace`: here the RGB and grey spaces images carry.
///
/// Differs from Apple: no ICC profiles are read or applied; a colour space is its name and its model. The pictures
/// this package makes are sRGB (``sRGB``), which is also what ``CGColorSpaceCreateDeviceRGB()`` means here.
public final class CGColorSpace: Sendable, CustomStringConvertible {
    /// The space's name (one of the `CGColorSpace` name constants), nil for a device space.
    public let name: CFString?
    /// The space's family.
    public let model: CGColorSpaceModel

    /// The standard RGB space (IEC 61966-2-1), as Apple's `kCGColorSpaceSRGB`.
    public static let sRGB: CFString = "kCGColorSpaceSRGB"
    /// Linear-light sRGB primaries, as Apple's `kCGColorSpaceLinearSRGB`.
    public static let linearSRGB: CFString = "kCGColorSpaceLinearSRGB"
    /// BT.709 primaries and transfer function, as Apple's `kCGColorSpaceITUR_709`.
    public static let itur_709: CFString = "kCGColorSpaceITUR_709"
    /// BT.2020 primaries and transfer function, as Apple's `kCGColorSpaceITUR_2020`.
    public static let itur_2020: CFString = "kCGColorSpaceITUR_2020"
    /// BT.2100 with the PQ transfer function, as Apple's `kCGColorSpaceITUR_2100_PQ`.
    public static let itur_2100_PQ: CFString = "kCGColorSpaceITUR_2100_PQ"
    /// BT.2100 with the HLG transfer function, as Apple's `kCGColorSpaceITUR_2100_HLG`.
    public static let itur_2100_HLG: CFString = "kCGColorSpaceITUR_2100_HLG"
    /// Display P3, as Apple's `kCGColorSpaceDisplayP3`.
    public static let displayP3: CFString = "kCGColorSpaceDisplayP3"
    /// Grey with a 2.2 gamma, as Apple's `kCGColorSpaceGenericGrayGamma2_2`.
    public static let genericGrayGamma2_2: CFString = "kCGColorSpaceGenericGrayGamma2_2"
    /// Linear grey, as Apple's `kCGColorSpaceLinearGray`.
    public static let linearGray: CFString = "kCGColorSpaceLinearGray"

    /// The names ``init(name:)`` knows, with their models.
    private static let known: [String: CGColorSpaceModel] = [
        sRGB: .rgb, linearSRGB: .rgb, itur_709: .rgb, itur_2020: .rgb, itur_2100_PQ: .rgb, itur_2100_HLG: .rgb,
        displayP3: .rgb, genericGrayGamma2_2: .monochrome, linearGray: .monochrome,
    ]

    /// The named colour space, or nil for a name this implementation does not know (Apple's `init?(name:)`).
    public init?(name: CFString) {
        guard let model = Self.known[name] else { return nil }
        self.name = name
        self.model = model
    }

    /// A device space of `model` (no name).
    init(deviceModel model: CGColorSpaceModel) {
        name = nil
        self.model = model
    }

    /// The number of colour components (3 for RGB, 1 for grey), without alpha.
    public var numberOfComponents: Int {
        switch model {
        case .monochrome: return 1
        case .cmyk: return 4
        case .rgb, .lab, .XYZ: return 3
        default: return 0
        }
    }

    /// Whether the space is wide-gamut (BT.2020, BT.2100, Display P3).
    public var isWideGamutRGB: Bool {
        [Self.itur_2020, Self.itur_2100_PQ, Self.itur_2100_HLG, Self.displayP3].contains(name ?? "")
    }

    /// The name and model, for logs.
    public var description: String { "<CGColorSpace \(name ?? "device") (\(model))>" }
}

/// The device RGB space (Apple's `CGColorSpaceCreateDeviceRGB()`); here it means sRGB, without a name.
public func CGColorSpaceCreateDeviceRGB() -> CGColorSpace { CGColorSpace(deviceModel: .rgb) }

/// The device grey space (Apple's `CGColorSpaceCreateDeviceGray()`).
public func CGColorSpaceCreateDeviceGray() -> CGColorSpace { CGColorSpace(deviceModel: .monochrome) }

/// The named colour space (Apple's `CGColorSpaceCreateWithName(_:)`); nil for an unknown name.
public func CGColorSpaceCreateWithName(_ name: CFString) -> CGColorSpace? { CGColorSpace(name: name) }
