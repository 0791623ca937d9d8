import FFmpegBridge

// The bridge between the engine's rational and FFmpeg's; internal to the engine.
extension MediaRational {
    /// FFmpeg's rational of the same value.
    var rational: Rational { Rational(num, den) }

    /// The engine's rational for FFmpeg's.
    init(_ rational: Rational) {
        self.init(rational.num, rational.den)
    }

    /// `value * from / to` rounded to nearest, halves away from zero, without overflow (`av_rescale_q`).
    package static func rescale(_ value: Int64, from: MediaRational, to: MediaRational) -> Int64 {
        Rational.rescale(value, from: from.rational, to: to.rational)
    }
}
