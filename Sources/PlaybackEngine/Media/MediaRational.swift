/// A rational number as the media describes it: a stream's time base, a frame rate, a sample aspect ratio.
///
/// A value type: any thread.
package struct MediaRational: Hashable, Sendable {
    /// The numerator.
    package var num: Int32
    /// The denominator.
    package var den: Int32

    /// The rational `num / den`.
    package init(_ num: Int32, _ den: Int32) {
        self.num = num
        self.den = den
    }

    /// The value as a `Double` (NaN for a zero denominator).
    package var doubleValue: Double { den == 0 ? .nan : Double(num) / Double(den) }
}
