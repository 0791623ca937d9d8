import CoreMedia
import CoreVideo
import Foundation
import PlaybackEngine

/// Reads an asset reader output's settings dictionary into what the engine's readers take. A setting the engine
/// cannot honour is a programmer error, as on Apple's systems (which raise an exception from the output's
/// initializer).
enum ReaderOutputSettings {
    /// A number out of a settings value, whatever numeric type the caller used.
    static func number(_ value: Any?) -> Double? {
        switch value {
        case let v as Int: return Double(v)
        case let v as Double: return v
        case let v as Float: return Double(v)
        case let v as UInt32: return Double(v)
        case let v as Int32: return Double(v)
        case let v as UInt: return Double(v)
        case let v as Int64: return Double(v)
        case let v as Bool: return v ? 1 : 0
        case let v as NSNumber: return v.doubleValue
        default: return nil
        }
    }

    /// A Boolean out of a settings value (default when absent).
    static func flag(_ value: Any?, default fallback: Bool) -> Bool {
        guard let n = number(value) else { return fallback }
        return n != 0
    }

    /// The pixel format video settings ask for (`kCVPixelBufferPixelFormatTypeKey`, a number or an array of them:
    /// the first the engine can produce), nil when they name none.
    static func pixelFormat(_ settings: [String: Any], function: StaticString = #function) -> OSType? {
        let value = settings[kCVPixelBufferPixelFormatTypeKey]
        var candidates: [Any] = []
        if let list = value as? [Any] { candidates = list } else if let value { candidates = [value] }
        guard !candidates.isEmpty else { return nil }
        let formats = candidates.compactMap { number($0).map { OSType(truncatingIfNeeded: Int64($0)) } }
        if let supported = formats.first(where: { PixelConverter.supportedOutputPixelFormatTypes.contains($0) }) {
            return supported
        }
        let names = formats.map { FourCC.string($0) }.joined(separator: ", ")
        apiViolation("no pixel format of [\(names)] can be produced here", function: function)
    }

    /// The linear PCM audio settings ask for.
    static func pcm(_ settings: [String: Any], function: StaticString = #function) -> PCMRequest {
        if let format = number(settings[AVFormatIDKey]), AudioFormatID(format) != kAudioFormatLinearPCM {
            apiViolation(
                "a reader output produces uncompressed audio: AVFormatIDKey must be kAudioFormatLinearPCM",
                function: function)
        }
        let isFloat = flag(settings[AVLinearPCMIsFloatKey], default: false)
        let bits = number(settings[AVLinearPCMBitDepthKey]).map { Int($0) } ?? (isFloat ? 32 : 16)
        let nonInterleaved =
            flag(settings[AVLinearPCMIsNonInterleaved], default: false)
            || flag(settings[AVLinearPCMIsNonInterleavedKey], default: false)
        let request = PCMRequest(
            sampleRate: number(settings[AVSampleRateKey]).map { Int($0.rounded()) },
            channelCount: number(settings[AVNumberOfChannelsKey]).map { Int($0) },
            bitsPerChannel: bits, isFloat: isFloat,
            isBigEndian: flag(settings[AVLinearPCMIsBigEndianKey], default: false),
            isNonInterleaved: nonInterleaved)
        let supported = isFloat ? (bits == 32 || bits == 64) : (bits == 16 || bits == 32)
        if !supported {
            apiViolation(
                "\(bits)-bit \(isFloat ? "float" : "integer") linear PCM cannot be produced here", function: function)
        }
        if let rate = request.sampleRate, rate <= 0 || rate > 768_000 {
            apiViolation("AVSampleRateKey \(rate) is out of range", function: function)
        }
        if let channels = request.channelCount, channels <= 0 || channels > 64 {
            apiViolation("AVNumberOfChannelsKey \(channels) is out of range", function: function)
        }
        return request
    }
}
