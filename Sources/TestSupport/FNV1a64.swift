/// The 64-bit FNV-1a hash (Fowler–Noll–Vo): tiny, fast, and the same on every platform and run, which is all a
/// playback dump needs to tell two sample streams apart (it is not a cryptographic hash).
///
/// ```swift
/// var hash = FNV1a64()
/// hash.combine(samples)        // the bit patterns of each Float, little-endian
/// print(hash.hexDigest)        // 16 lowercase hex digits
/// ```
public struct FNV1a64: Sendable, Equatable {
    /// FNV's 64-bit offset basis.
    public static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    /// FNV's 64-bit prime.
    public static let prime: UInt64 = 0x0000_0100_0000_01b3

    /// The hash of everything combined so far.
    public private(set) var value: UInt64 = Self.offsetBasis

    /// An empty hash (the offset basis).
    public init() {}

    /// Folds in one byte.
    public mutating func combine(byte: UInt8) {
        value = (value ^ UInt64(byte)) &* Self.prime
    }

    /// Folds in `bytes` in order.
    public mutating func combine<Bytes: Sequence>(bytes: Bytes) where Bytes.Element == UInt8 {
        for byte in bytes { combine(byte: byte) }
    }

    /// Folds in each sample's IEEE 754 bit pattern, least significant byte first (so the digest does not depend on
    /// the machine's byte order, and -0.0, NaN payloads and the last bit of rounding all count).
    public mutating func combine<Samples: Sequence>(_ samples: Samples) where Samples.Element == Float {
        for sample in samples {
            var bits = sample.bitPattern
            for _ in 0..<4 {
                combine(byte: UInt8(truncatingIfNeeded: bits))
                bits >>= 8
            }
        }
    }

    /// The value as 16 lowercase hexadecimal digits.
    public var hexDigest: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
