import Foundation
import PlaybackEngine

/// The model-predictive half of ``DefaultVariantPolicy`` (RobustMPC): the throughput predicted for the next segments
/// and the best plan of rungs for them.
extension DefaultVariantPolicy {
    /// The best plan's first rung, and whether the plan spends the buffer at the end of the item (it reaches the end
    /// on a rung above the predicted throughput).
    struct Plan: Equatable {
        var first: Int
        var spendsTheBuffer: Bool
    }

    /// The throughput (bits per second) the next segments are planned on: the harmonic mean of the last
    /// ``Tuning/throughputSampleCount`` samples over 1 + the largest relative amount by which the same prediction
    /// overshot one of the last ones (at most ``Tuning/maximumPredictionError``; an undershoot counts as none), times
    /// ``Tuning/plannedThroughputShare``. Without samples, the estimate (an earlier item's) stands for one.
    package func predictedThroughput(samples: [Double], estimate: Double) -> Double {
        let measured = samples.filter { $0 > 0 && $0.isFinite }
        let samples = measured.isEmpty ? [estimate] : measured
        let count = max(1, tuning.throughputSampleCount)
        func harmonicMean(_ values: ArraySlice<Double>) -> Double {
            Double(values.count) / values.reduce(0) { $0 + 1 / $1 }
        }
        let n = samples.count
        let prediction = harmonicMean(samples[max(0, n - count)...])
        var error = 0.0
        for k in max(1, n - count)..<n {
            let past = harmonicMean(samples[max(0, k - count)..<k])
            error = max(error, (past - samples[k]) / samples[k])
        }
        return prediction / (1 + min(error, tuning.maximumPredictionError)) * tuning.plannedThroughputShare
    }

    /// Plays every sequence of eligible rungs for the next ``Tuning/planSegments`` segments (fewer when the item ends
    /// sooner) on a model of the buffer and returns the best one's first rung (nil without eligible variants).
    func plan(in s: VariantSituation, estimate: Double) -> Plan? {
        let eligible = s.eligible.sorted { s.variants[$0].peakBitRate < s.variants[$1].peakBitRate }
        guard !eligible.isEmpty, let currentPosition = eligible.firstIndex(of: s.current) else { return nil }
        let throughput = predictedThroughput(samples: s.throughputSamples, estimate: estimate)
        guard throughput > 0, throughput.isFinite else { return nil }
        let segment = max(s.segmentDuration, 0.5)
        // The media ahead when the request goes out: the buffer measured and the segment being read.
        let start = max(0, s.forwardBuffer ?? 0) + segment
        var length = max(1, tuning.planSegments)
        var reachesTheEnd = false
        if let remaining = s.remainingDuration, remaining > 0 {
            let count = Int((remaining / segment - 0.01).rounded(.up))
            if count <= length {
                length = max(1, count)
                reachesTheEnd = true
            }
        }
        /// Bit rates in Mbit/s, as the QoE counts them.
        let rates = eligible.map { Double(s.variants[$0].peakBitRate) / 1e6 }
        let current = rates[currentPosition]
        let predicted = throughput / 1e6
        // The rung a plan ending above the prediction comes back down to.
        let sustained = rates.last { $0 <= predicted } ?? rates[0]
        let weights = tuning.weights
        let room = tuning.maximumBuffer - segment
        var best = -Double.infinity
        var bestFirst = currentPosition
        var first = currentPosition
        func search(depth: Int, buffer: Double, last: Double, qoe: Double) {
            if depth == length {
                var score = qoe
                if !reachesTheEnd {
                    if last > sustained { score -= weights.smoothnessPenalty * (last - sustained) }
                    // A climb must end where the down rules keep its last rung.
                    if last > current,
                        !keeps(rate: last * 1e6, mediaAhead: buffer, segment: segment, estimate: estimate)
                    {
                        return
                    }
                }
                if score > best + 1e-9 {
                    best = score
                    bestFirst = first
                }
                return
            }
            for (position, rate) in rates.enumerated() {
                if depth == 0 { first = position }
                let transfer = rate * segment / predicted
                let stall = max(0, transfer - buffer)
                let next = min(max(0, buffer - transfer) + segment, room)
                let score = qoe + rate - weights.rebufferPenalty * stall - weights.smoothnessPenalty * abs(rate - last)
                search(depth: depth + 1, buffer: next, last: rate, qoe: score)
            }
        }
        search(depth: 0, buffer: start, last: current, qoe: 0)
        return Plan(first: eligible[bestFirst], spendsTheBuffer: reachesTheEnd && rates[bestFirst] > predicted)
    }

    /// Whether the down rules keep a variant of `rate` with `mediaAhead` seconds ahead when its next segment is asked
    /// for (the buffer measured then leaves out the segment being read).
    func keeps(rate: Double, mediaAhead: Double, segment: Double, estimate: Double) -> Bool {
        let measured = max(0, mediaAhead - segment)
        return rate <= estimate * downFraction(buffer: measured, segment: segment)
            && rate * segment / estimate <= tuning.starvationShare * mediaAhead
    }
}
