import CoreGraphics
import CoreMedia
import Foundation
import PlaybackEngine

/// The dynamic range of a variant's video (Apple's `AVVideoRange`): HLS `VIDEO-RANGE`.
public struct AVVideoRange: Hashable, RawRepresentable, Sendable {
    /// The range's name (HLS `VIDEO-RANGE` spelling).
    public let rawValue: String
    /// A range with this name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Standard dynamic range.
    public static let sdr = AVVideoRange(rawValue: "SDR")
    /// Hybrid log-gamma HDR.
    public static let hlg = AVVideoRange(rawValue: "HLG")
    /// Perceptual-quantizer HDR.
    public static let pq = AVVideoRange(rawValue: "PQ")
}

/// One variant of a streamed asset (an HLS `EXT-X-STREAM-INF`), as its multivariant playlist declares it: its bit
/// rates and what its video and audio are. Files have none (`AVURLAsset.variants` is empty).
open class AVAssetVariant: NSObject, @unchecked Sendable {
    let description_: VariantDescription

    init(_ description: VariantDescription) {
        self.description_ = description
    }

    /// `BANDWIDTH`: the peak bits per second of the variant's media.
    open var peakBitRate: Double? { Double(description_.peakBitRate) }

    /// `AVERAGE-BANDWIDTH`, nil when the playlist does not declare it.
    open var averageBitRate: Double? { description_.averageBitRate.map(Double.init) }

    /// What the variant's video is; nil for an audio-only variant.
    open var videoAttributes: VideoAttributes? {
        description_.hasVideo ? VideoAttributes(description_) : nil
    }

    /// What the variant's audio is; nil when it carries none.
    open var audioAttributes: AudioAttributes? {
        description_.hasAudio ? AudioAttributes(description_) : nil
    }

    /// The video of a variant.
    open class VideoAttributes: NSObject, @unchecked Sendable {
        private let variant: VariantDescription

        init(_ variant: VariantDescription) { self.variant = variant }

        /// SDR unless the playlist says otherwise (`VIDEO-RANGE` is not read yet).
        open var videoRange: AVVideoRange { .sdr }

        /// The video codecs (`CMVideoCodecType` four-character codes) the `CODECS` attribute names.
        open var codecTypes: [NSNumber] {
            variant.codecs.compactMap { FourCharacterCode.video(forCodec: $0) }.map { NSNumber(value: $0) }
        }

        /// `RESOLUTION`; zero when the playlist does not declare it.
        open var presentationSize: CGSize {
            CGSize(width: variant.width ?? 0, height: variant.height ?? 0)
        }

        /// `FRAME-RATE`, nil when the playlist does not declare it.
        open var nominalFrameRate: Double? { variant.frameRate }
    }

    /// The audio of a variant.
    open class AudioAttributes: NSObject, @unchecked Sendable {
        private let variant: VariantDescription

        init(_ variant: VariantDescription) { self.variant = variant }

        /// The audio formats (`AudioFormatID` four-character codes) the `CODECS` attribute names.
        open var formatIDs: [NSNumber] {
            variant.codecs.compactMap { FourCharacterCode.audio(forCodec: $0) }.map { NSNumber(value: $0) }
        }
    }
}

/// RFC 6381 codec strings to Core Media / Core Audio four-character codes.
private enum FourCharacterCode {
    static func code(_ text: String) -> UInt32 {
        text.utf8.reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func video(forCodec codec: String) -> UInt32? {
        let prefix = codec.lowercased().prefix(4)
        switch prefix {
        case "avc1", "avc3": return code("avc1")
        case "hvc1", "hev1": return code("hvc1")
        case "dvh1", "dvhe": return code("dvh1")
        case "av01": return code("av01")
        case "vp09": return code("vp09")
        default: return nil
        }
    }

    static func audio(forCodec codec: String) -> UInt32? {
        let lower = codec.lowercased()
        if lower.hasPrefix("mp4a") { return code("aac ") }
        if lower.hasPrefix("ac-3") { return code("ac-3") }
        if lower.hasPrefix("ec-3") { return code("ec-3") }
        if lower.hasPrefix("opus") { return code("opus") }
        if lower.hasPrefix("flac") || lower.hasPrefix("fla") { return code("flac") }
        return nil
    }
}

extension AVURLAsset {
    /// The variants of a streamed asset (HLS), in playlist order; empty for files and media playlists. Blocks until
    /// the asset is loaded: prefer `load(.variants)`.
    @available(iOS, deprecated: 16.0, message: "Use load(.variants) instead")
    public var variants: [AVAssetVariant] {
        ((try? description())?.variants ?? []).map(AVAssetVariant.init)
    }
}

extension AVAsyncProperty where Root: AVURLAsset, Value == [AVAssetVariant] {
    /// The asset's variants (``AVURLAsset/variants``).
    public static var variants: AVAsyncProperty<Root, [AVAssetVariant]> {
        .init(key: "variants") { try $0.description().variants.map(AVAssetVariant.init) }
    }
}
