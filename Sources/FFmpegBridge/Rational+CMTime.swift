import CoreMedia

extension CMTime {
    /// A timestamp in an FFmpeg time base, exactly: `value * num / den` seconds keeps the stream's
    /// timescale (`den`) when `num == 1`, the usual case; otherwise it is scaled up while it fits,
    /// then rescaled with rounding.
    package init(ffmpeg value: Int64, timeBase: Rational) {
        guard timeBase.den > 0, timeBase.num > 0 else {
            self = .invalid
            return
        }
        if timeBase.num == 1 {
            self.init(value: value, timescale: timeBase.den)
            return
        }
        let (product, overflow) = value.multipliedReportingOverflow(by: Int64(timeBase.num))
        if !overflow {
            self.init(value: product, timescale: timeBase.den)
        } else {
            self = CMTimeMultiplyByRatio(
                CMTime(value: value, timescale: timeBase.den), multiplier: timeBase.num, divisor: 1)
        }
    }

    /// Microseconds (`AV_TIME_BASE`), as libavformat reports container times.
    package init(microseconds: Int64) {
        self.init(value: microseconds, timescale: 1_000_000)
    }

    /// This time as a value in `timeBase`, rounded to nearest; nil when not numeric.
    package func ffmpegValue(in timeBase: Rational) -> Int64? {
        guard isNumeric, timescale > 0, timeBase.num > 0 else { return nil }
        return Rational.rescale(value, from: Rational(1, timescale), to: timeBase)
    }
}
