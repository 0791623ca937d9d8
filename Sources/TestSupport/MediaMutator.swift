import Foundation

/// Damaged copies of a media file, made at test time from a seed (nothing is committed but the seed).
///
/// Each seed picks one recipe, deterministically on every machine (a SplitMix64 generator, not the system's):
/// - `.flipBits`: 16…512 single bits flipped in the middle of the file (the media data of an MP4 whose `moov` is at
///   the end, as `h264_aac.mp4`'s is);
/// - `.overwrite`: 4…64 KiB of the middle overwritten with noise;
/// - `.zero`: 4…128 KiB of the middle zeroed;
/// - `.flipHeaderBits`: 1…16 bits flipped in the last tenth (the `moov` of such a file);
/// - `.overwriteHeader`: 4…256 bytes of the last tenth overwritten with noise;
/// - `.truncate`: the file cut anywhere.
///
/// ```swift
/// let mutant = MediaMutator.mutate(try Data(contentsOf: url), seed: 22)
/// try mutant.data.write(to: copy)   // mutant.description says what was done, for failure messages
/// ```
public enum MediaMutator {
    /// What one seed does to the file.
    public enum Recipe: Sendable, CustomStringConvertible {
        /// Bits flipped at these byte offsets (bit index per offset).
        case flipBits([(offset: Int, bit: Int)])
        /// `length` bytes from `offset` overwritten with noise.
        case overwrite(offset: Int, length: Int)
        /// `length` bytes from `offset` set to zero.
        case zero(offset: Int, length: Int)
        /// Everything from `length` on removed.
        case truncate(length: Int)

        public var description: String {
            switch self {
            case .flipBits(let flips): "flip \(flips.count) bits from byte \(flips.map(\.offset).min() ?? 0)"
            case .overwrite(let offset, let length): "overwrite \(length) bytes at \(offset) with noise"
            case .zero(let offset, let length): "zero \(length) bytes at \(offset)"
            case .truncate(let length): "truncate to \(length) bytes"
            }
        }
    }

    /// A damaged copy and what was done to it.
    public struct Mutant: Sendable, CustomStringConvertible {
        public var seed: UInt64
        public var recipe: Recipe
        public var data: Data
        public var description: String { "seed \(seed): \(recipe)" }
    }

    /// The copy of `data` that `seed` makes (the same bytes for the same input and seed, everywhere).
    public static func mutate(_ data: Data, seed: UInt64) -> Mutant {
        var bytes = [UInt8](data)
        var random = SplitMix64(seed: seed)
        let n = bytes.count
        guard n > 16 else { return Mutant(seed: seed, recipe: .truncate(length: n / 2), data: Data(bytes[..<(n / 2)])) }
        let middle = (n / 5)..<(n * 3 / 5)
        let tail = (n * 9 / 10)..<n
        let recipe: Recipe
        switch seed % 6 {
        case 0:
            let flips = (0..<random.next(in: 16...512)).map { _ in
                (offset: random.next(in: middle), bit: random.next(in: 0...7))
            }
            recipe = .flipBits(flips)
        case 1:
            recipe = .overwrite(offset: random.next(in: middle), length: random.next(in: 4096...65536))
        case 2:
            recipe = .zero(offset: random.next(in: middle), length: random.next(in: 4096...131_072))
        case 3:
            let flips = (0..<random.next(in: 1...16)).map { _ in
                (offset: random.next(in: tail), bit: random.next(in: 0...7))
            }
            recipe = .flipBits(flips)
        case 4:
            recipe = .overwrite(offset: random.next(in: tail), length: random.next(in: 4...256))
        default:
            recipe = .truncate(length: random.next(in: 0..<n))
        }
        switch recipe {
        case .flipBits(let flips):
            for flip in flips { bytes[flip.offset] ^= 1 << UInt8(flip.bit) }
        case .overwrite(let offset, let length):
            for i in offset..<min(n, offset + length) { bytes[i] = UInt8(truncatingIfNeeded: random.nextRaw()) }
        case .zero(let offset, let length):
            for i in offset..<min(n, offset + length) { bytes[i] = 0 }
        case .truncate(let length):
            bytes.removeSubrange(length...)
        }
        return Mutant(seed: seed, recipe: recipe, data: Data(bytes))
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny generator whose sequence is fixed by its seed on every platform.
public struct SplitMix64: Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func nextRaw() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `range` (modulo reduction: the tiny bias does not matter for test inputs).
    public mutating func next(in range: Range<Int>) -> Int {
        range.lowerBound + Int(nextRaw() % UInt64(range.count))
    }

    /// A value in `range`.
    public mutating func next(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(nextRaw() % UInt64(range.count))
    }
}
