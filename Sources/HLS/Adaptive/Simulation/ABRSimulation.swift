import Foundation
import PlaybackEngine

/// A ladder as the segment simulation sees it: each variant's declared `BANDWIDTH` (ascending) and the bytes of each
/// of its segments, all segments `segmentDuration` seconds long. A value: any thread.
package struct SimulatedLadder: Sendable, Equatable {
    /// Declared bit rates, lowest first.
    package var bitRates: [Double]
    /// `segmentBytes[variant][segment]`.
    package var segmentBytes: [[Double]]
    package var segmentDuration: Double

    /// A ladder whose segments are exactly their declared rate × their duration.
    package init(bitRates: [Double], segmentDuration: Double, segmentCount: Int) {
        self.bitRates = bitRates
        self.segmentDuration = segmentDuration
        segmentBytes = bitRates.map { Array(repeating: $0 * segmentDuration / 8, count: segmentCount) }
    }

    package init(bitRates: [Double], segmentBytes: [[Double]], segmentDuration: Double) {
        self.bitRates = bitRates
        self.segmentBytes = segmentBytes
        self.segmentDuration = segmentDuration
    }

    package var segmentCount: Int { segmentBytes.first?.count ?? 0 }
}

/// The rules both the online policy and the oracle play by: segments are fetched one after the other; playback
/// starts when the first segment has arrived; the buffer holds at most ``maximumBuffer`` seconds (the next request
/// waits until a segment fits); when it runs dry playback stalls until the segment under way arrives.
package struct PlaybackRules: Sendable, Equatable {
    /// Seconds of media the player buffers ahead at most: the engine's demuxer reads 10 s ahead of the playhead and
    /// the feed holds the segment it reads whole, fetching the next once that one has arrived, so a request goes out
    /// with up to 10 s + a segment ahead (the decisions of the trace bench's runs see up to 10.3 s measured, which
    /// leaves out the segment being read). Before, the oracle had 10 s in all: less room than the player, a bound
    /// that avplay beat on the step down.
    package var maximumBuffer: Double

    package init(maximumBuffer: Double = 14) {
        self.maximumBuffer = maximumBuffer
    }
}

/// The weights of the linear QoE (MPC's `QoE_lin`, Pensieve's weights): per segment, its bit rate in Mbit/s; minus
/// ``rebufferPenalty`` per second of stall (the start-up wait counts: playback waits for the first segment); minus
/// ``smoothnessPenalty`` × the change of bit rate (Mbit/s) at each switch.
package struct QoEWeights: Sendable, Equatable {
    package var rebufferPenalty: Double
    package var smoothnessPenalty: Double

    /// Pensieve's: 4.3 (the top bit rate of its ladder, in Mbit/s) and 1.
    package static let pensieve = QoEWeights(rebufferPenalty: 4.3, smoothnessPenalty: 1)

    package init(rebufferPenalty: Double, smoothnessPenalty: Double) {
        self.rebufferPenalty = rebufferPenalty
        self.smoothnessPenalty = smoothnessPenalty
    }
}

/// What a viewer saw in one run.
package struct ABRRunMetrics: Sendable, Equatable {
    /// The variant of each segment.
    package var variants: [Int]
    /// Seconds from the first request to the first picture.
    package var startUp: Double
    /// Time-weighted average of the declared bit rate played (bits per second).
    package var averageBitRate: Double
    /// Stalls after the start, and their total seconds.
    package var stallCount: Int
    package var stallSeconds: Double
    /// Changes of variant.
    package var switchCount: Int
    /// The linear QoE (``QoEWeights``).
    package var qoe: Double
}

/// One variant decision of a simulated run: what it was made on, for the decision log.
package struct SimulatedDecision: Sendable, Equatable {
    package var segment: Int
    package var time: Double
    package var from: Int
    package var to: Int
    package var reason: VariantSwitchReason
    package var estimate: Double?
    package var buffer: Double
}

/// Plays a ladder over a ``NetworkTrace`` segment by segment, in simulated time (no clock, no network: a 60 s trace
/// takes milliseconds), with a ``VariantPolicy`` deciding each segment on a ``BandwidthEstimator`` fed as the
/// ``BandwidthMeter`` feeds it (each segment's bytes over its transfer time, weighted by its media seconds), or a
/// fixed schedule. The same step serves the oracle (``ABROracle``). A value: any thread.
package struct ABRSimulation: Sendable {
    package var ladder: SimulatedLadder
    package var trace: NetworkTrace
    package var rules: PlaybackRules
    package var weights: QoEWeights

    package init(
        ladder: SimulatedLadder, trace: NetworkTrace, rules: PlaybackRules = PlaybackRules(),
        weights: QoEWeights = .pensieve
    ) {
        self.ladder = ladder
        self.trace = trace
        self.rules = rules
        self.weights = weights
    }

    /// The state between two segments.
    package struct State: Sendable, Equatable {
        /// Seconds since the first request; when the last segment arrived.
        package var time = 0.0
        /// Seconds of media buffered ahead of the playhead.
        package var buffer = 0.0
        package var started = false
        package var startUp = 0.0
        package var stallCount = 0
        package var stallSeconds = 0.0
        /// The variant of the last segment (nil before the first).
        package var last: Int?
        package var switchCount = 0
        package var qoe = 0.0
        package var bitRateSum = 0.0
    }

    /// Waits (playing) until segment `index` fits in the buffer: the time the request goes out and the buffer then.
    package func request(after state: State) -> State {
        var s = state
        let room = rules.maximumBuffer - ladder.segmentDuration
        if s.started && s.buffer > room {
            s.time += s.buffer - room
            s.buffer = room
        }
        return s
    }

    /// Fetches segment `index` from `variant` starting at `s` (already through ``request(after:)``): the state once
    /// it arrived, and its transfer's seconds.
    package func fetch(_ index: Int, from variant: Int, at s: State) -> (State, transfer: Double) {
        var next = s
        let arrival = trace.arrival(ofBytes: ladder.segmentBytes[variant][index], requestedAt: s.time)
        let transfer = arrival - s.time
        let rate = ladder.bitRates[variant] / 1e6
        if !s.started {
            next.started = true
            next.startUp = transfer
            next.buffer = ladder.segmentDuration
            next.qoe -= weights.rebufferPenalty * transfer
        } else if transfer > s.buffer {
            next.stallCount += 1
            next.stallSeconds += transfer - s.buffer
            next.qoe -= weights.rebufferPenalty * (transfer - s.buffer)
            next.buffer = ladder.segmentDuration
        } else {
            next.buffer = s.buffer - transfer + ladder.segmentDuration
        }
        next.qoe += rate
        if let last = s.last, last != variant {
            next.switchCount += 1
            next.qoe -= weights.smoothnessPenalty * abs(rate - ladder.bitRates[last] / 1e6)
        }
        next.last = variant
        next.bitRateSum += ladder.bitRates[variant]
        next.time = arrival
        return (next, transfer)
    }

    /// The metrics of a finished run.
    func metrics(_ s: State, variants: [Int]) -> ABRRunMetrics {
        ABRRunMetrics(
            variants: variants, startUp: s.startUp, averageBitRate: s.bitRateSum / Double(max(1, variants.count)),
            stallCount: s.stallCount, stallSeconds: s.stallSeconds, switchCount: s.switchCount, qoe: s.qoe)
    }

    /// Plays `schedule` (a variant per segment).
    package func play(schedule: [Int]) -> ABRRunMetrics {
        var s = State()
        for (index, variant) in schedule.enumerated() { s = fetch(index, from: variant, at: request(after: s)).0 }
        return metrics(s, variants: schedule)
    }

    /// Plays with `policy` deciding each segment after the first (which comes from `start`), as the HLS source
    /// does: the decisions that changed the variant are in the result's log.
    package func play(
        policy: any VariantPolicy = DefaultVariantPolicy(), start: Int = 0, prior: Double? = nil
    ) -> (metrics: ABRRunMetrics, decisions: [SimulatedDecision]) {
        let descriptions = ladder.bitRates.enumerated().map { index, rate in
            VariantDescription(
                uri: "v\(index)", peakBitRate: Int(rate), width: nil, height: nil, hasVideo: true, hasAudio: true)
        }
        var estimator = BandwidthEstimator(prior: prior)
        var s = State()
        var variants: [Int] = []
        var decisions: [SimulatedDecision] = []
        var current = start
        for index in 0..<ladder.segmentCount {
            s = request(after: s)
            if index > 0 {
                // What the source measures: up to the start of the last segment fetched (the one being read).
                let measured = max(0, s.buffer - ladder.segmentDuration)
                let situation = VariantSituation(
                    variants: descriptions, current: current, eligible: Array(descriptions.indices),
                    estimatedBitRate: estimator.estimate, forwardBuffer: measured, mediaSequence: index,
                    segmentDuration: ladder.segmentDuration, caps: VariantCaps(),
                    remainingDuration: Double(ladder.segmentCount - index) * ladder.segmentDuration,
                    throughputSamples: estimator.recentSamples)
                let choice = policy.chooseVariant(in: situation)
                if choice.index != current, descriptions.indices.contains(choice.index) {
                    decisions.append(
                        SimulatedDecision(
                            segment: index, time: s.time, from: current, to: choice.index, reason: choice.reason,
                            estimate: estimator.estimate, buffer: measured))
                    current = choice.index
                }
            }
            let (next, transfer) = fetch(index, from: current, at: s)
            if transfer > 0 {
                estimator.add(
                    bitsPerSecond: ladder.segmentBytes[current][index] * 8 / transfer,
                    mediaSeconds: ladder.segmentDuration)
            }
            s = next
            variants.append(current)
        }
        return (metrics(s, variants: variants), decisions)
    }
}
