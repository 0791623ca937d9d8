/// A track's volume over item time (AVAudioMix input parameters): 1 before the first point;
/// a step holds until the next change; a ramp interpolates linearly across its range; after the
/// last point the last volume holds.
package struct VolumeCurve: Sendable, Equatable {
    /// A ramp from `from` at `start` to `to` at `end` (seconds); a step has `start == end`.
    package struct Segment: Sendable, Equatable {
        package var start: Double
        package var end: Double
        package var from: Float
        package var to: Float
        package init(start: Double, end: Double, from: Float, to: Float) {
            self.start = start
            self.end = end
            self.from = from
            self.to = to
        }
    }

    /// Sorted by start.
    package let segments: [Segment]

    package init(segments: [Segment]) {
        self.segments = segments.sorted { $0.start < $1.start }
    }

    /// The gain at item time `t` (seconds).
    package func value(at t: Double) -> Float {
        var current: Float = 1
        for s in segments {
            if t < s.start { return current }
            if t < s.end {
                let f = Float((t - s.start) / (s.end - s.start))
                return s.from + (s.to - s.from) * f
            }
            current = s.to
        }
        return current
    }

    /// Whether the gain is 1 everywhere (nothing to apply).
    package var isUnity: Bool { segments.allSatisfy { $0.from == 1 && $0.to == 1 } }
}
