import CFFmpeg

/// A rational number as FFmpeg uses it for time bases, frame rates and aspect ratios.
public struct Rational: Hashable, Sendable {
    public var num: Int32
    public var den: Int32

    public init(_ num: Int32, _ den: Int32) {
        self.num = num
        self.den = den
    }

    init(_ r: AVRational) {
        self.init(r.num, r.den)
    }

    var av: AVRational { AVRational(num: num, den: den) }

    /// Nil for the unknown rational `0/x` or a zero denominator.
    public var nonZero: Rational? { num != 0 && den != 0 ? self : nil }

    public var doubleValue: Double { den == 0 ? .nan : Double(num) / Double(den) }

    /// FFmpeg's "no timestamp" value.
    public static var noPTS: Int64 { CFFmpeg_AV_NOPTS_VALUE() }

    /// `a * b / c` rounded to nearest, without overflow (`av_rescale_q`).
    public static func rescale(_ value: Int64, from: Rational, to: Rational) -> Int64 {
        av_rescale_q(value, from.av, to.av)
    }
}
