import Foundation
import PlaybackEngine
import XCTest

@testable import HLS

/// The bandwidth estimate (two moving averages, the lower wins), the meter that samples transfers, and the default
/// variant policy, on synthetic numbers.
final class BandwidthEstimatorTests: XCTestCase {
    func test_firstSampleIsTheEstimate_thePriorBeforeIt() {
        var estimator = BandwidthEstimator()
        XCTAssertNil(estimator.estimate)
        estimator.add(bitsPerSecond: 8_000_000, mediaSeconds: 2)
        XCTAssertEqual(estimator.estimate ?? 0, 8_000_000, accuracy: 1, "the first segment gives the first estimate")
        estimator.add(bitsPerSecond: 8_000_000, mediaSeconds: 2)
        XCTAssertEqual(estimator.estimate ?? 0, 8_000_000, accuracy: 1)
        XCTAssertEqual(estimator.sampleCount, 2)

        var seeded = BandwidthEstimator(prior: 3_000_000)
        XCTAssertEqual(seeded.estimate, 3_000_000, "an earlier item's estimate, until this one measures")
        seeded.add(bitsPerSecond: 1_000_000, mediaSeconds: 2)
        XCTAssertEqual(seeded.estimate ?? 0, 1_000_000, accuracy: 1, "the measurement replaces it")
        XCTAssertNil(BandwidthEstimator(prior: .nan).estimate)
        XCTAssertNil(BandwidthEstimator(prior: 0).estimate)
    }

    func test_ignoresSamplesWithoutRateOrMedia() {
        var estimator = BandwidthEstimator()
        estimator.add(bitsPerSecond: 0, mediaSeconds: 2)
        estimator.add(bitsPerSecond: 1_000_000, mediaSeconds: 0)
        estimator.add(bitsPerSecond: .infinity, mediaSeconds: 2)
        estimator.add(bitsPerSecond: -5, mediaSeconds: 2)
        XCTAssertEqual(estimator.sampleCount, 0)
    }

    /// A drop is followed within a segment or two (the fast average), a burst is not chased (the slow one).
    func test_dropIsFollowedFast_burstIsDamped() {
        var estimator = BandwidthEstimator()
        for _ in 0..<10 { estimator.add(bitsPerSecond: 4_000_000, mediaSeconds: 2) }
        estimator.add(bitsPerSecond: 1_000_000, mediaSeconds: 2)
        let afterDrop = estimator.estimate ?? 0
        // One 2 s segment is the fast average's half-life: half-way down, whatever the slow one says.
        XCTAssertEqual(afterDrop, 2_500_000, accuracy: 1_000)
        estimator.add(bitsPerSecond: 1_000_000, mediaSeconds: 2)
        XCTAssertEqual(estimator.estimate ?? 0, 1_750_000, accuracy: 1_000)

        var steady = BandwidthEstimator()
        for _ in 0..<10 { steady.add(bitsPerSecond: 1_000_000, mediaSeconds: 2) }
        steady.add(bitsPerSecond: 9_000_000, mediaSeconds: 2)
        // The fast average is half-way (5 Mb/s); the slow one (5 s half-life) gives the new sample a quarter of the
        // weight (1 - 0.5^(2/5), over the 22 s seen so far): 3.03 Mb/s.
        let slowShare = (1 - pow(0.5, 2.0 / 5.0)) / (1 - pow(0.5, 22.0 / 5.0))
        XCTAssertEqual(steady.estimate ?? 0, 1_000_000 + 8_000_000 * slowShare, accuracy: 1)
        XCTAssertLessThan(steady.estimate ?? .infinity, 3_100_000)
    }

    /// Transfers side by side share the link: the sample is their bytes over the time any was under way.
    func test_meterSample_isBytesOverTheUnionOfTransfers() throws {
        let t0 = Date(timeIntervalSinceReferenceDate: 1000)
        func transfer(_ start: Double, _ duration: Double, _ bytes: Int64, variant: Bool) -> NetworkLog.Transfer {
            NetworkLog.Transfer(
                kind: .media, uri: "x", serverAddress: nil, bytes: bytes, duration: duration,
                start: t0.addingTimeInterval(start), mediaDuration: 2, indicatedBitrate: variant ? 1e6 : nil)
        }
        // Video 0–1 s and audio 0.5–1.5 s overlap; another video 3–4 s: busy 2.5 s.
        let sample = try XCTUnwrap(
            BandwidthMeter.sample(of: [
                transfer(0, 1, 100_000, variant: true), transfer(0.5, 1, 50_000, variant: false),
                transfer(3, 1, 100_000, variant: true),
            ]))
        XCTAssertEqual(sample.bitsPerSecond, 250_000 * 8 / 2.5, accuracy: 1)
        XCTAssertEqual(sample.mediaSeconds, 4, "the variant's two segments")
        XCTAssertNil(BandwidthMeter.sample(of: []))

        let log = NetworkLog()
        let meter = BandwidthMeter(log: log)
        XCTAssertNil(meter.estimate())
        log.record(transfer(0, 1, 250_000, variant: true))
        XCTAssertEqual(meter.estimate() ?? 0, 2_000_000, accuracy: 1)
        log.record(transfer(2, 1, 250_000, variant: true))
        XCTAssertEqual(meter.estimate() ?? 0, 2_000_000, accuracy: 1)
        XCTAssertEqual(meter.estimator.sampleCount, 2, "each transfer sampled once")
        // A rendition's segment waits for the next variant segment, and is sampled with it.
        log.record(transfer(4, 1, 250_000, variant: false))
        _ = meter.estimate()
        XCTAssertEqual(meter.estimator.sampleCount, 2)
        log.record(transfer(4, 1, 250_000, variant: true))
        _ = meter.estimate()
        XCTAssertEqual(meter.estimator.sampleCount, 3)
    }

    /// A throttle lifted: the segment slowed by it and the fast one after it, finished between two looks, are two
    /// samples, and the fast one alone carries the estimate past the top rung of the ladder with margin.
    func test_meter_oneFastSegmentAfterAThrottle_isEnoughForTheTopRung() {
        let t0 = Date(timeIntervalSinceReferenceDate: 1000)
        let log = NetworkLog()
        let meter = BandwidthMeter(log: log)
        func video(_ start: Double, _ duration: Double, _ bytes: Int64) {
            log.record(
                NetworkLog.Transfer(
                    kind: .media, uri: "v", serverAddress: nil, bytes: bytes, duration: duration,
                    start: t0.addingTimeInterval(start), mediaDuration: 2, indicatedBitrate: 580_800))
        }
        // Four 2 s segments of 150 kB at 697 kb/s (1.2 × the lowest rung), 1.72 s each.
        for k in 0..<4 { video(Double(k) * 2, 1.72, 150_000) }
        XCTAssertEqual(meter.estimate() ?? 0, 697_674, accuracy: 1_000)
        // The last throttled one, and a 400 kB one in 20 ms once the throttle is gone (160 Mb/s).
        video(8, 1.72, 150_000)
        video(9.8, 0.02, 400_000)
        let estimate = meter.estimate() ?? 0
        XCTAssertGreaterThan(estimate * DefaultVariantPolicy.bandwidthFraction, 1_790_800)
    }
}

/// The default policy's throughput-and-buffer rules (``DefaultVariantPolicy/ruleChoice(in:)``) and its plan, one
/// situation each.
final class DefaultVariantPolicyTests: XCTestCase {
    /// The ladder of `HLSFixture.ts`.
    private let ladder = [580_800, 1_020_800, 1_790_800].enumerated().map { i, rate in
        VariantDescription(
            uri: "v\(i)", peakBitRate: rate, width: [640, 960, 1280][i], height: [360, 540, 720][i], hasVideo: true,
            hasAudio: true)
    }

    private func situation(
        current: Int, estimate: Double?, buffer: Double?, eligible: [Int], remaining: Double?, samples: [Double]
    ) -> VariantSituation {
        VariantSituation(
            variants: ladder, current: current, eligible: eligible, estimatedBitRate: estimate, forwardBuffer: buffer,
            mediaSequence: 3, segmentDuration: 2, caps: VariantCaps(), remainingDuration: remaining,
            throughputSamples: samples)
    }

    /// The policy's choice (the plan and the rules).
    private func choose(
        current: Int, estimate: Double?, buffer: Double?, eligible: [Int] = [0, 1, 2], remaining: Double? = nil,
        samples: [Double] = []
    ) -> VariantChoice {
        DefaultVariantPolicy().chooseVariant(
            in: situation(
                current: current, estimate: estimate, buffer: buffer, eligible: eligible, remaining: remaining,
                samples: samples))
    }

    /// The rules' choice alone.
    private func rules(
        current: Int, estimate: Double?, buffer: Double?, eligible: [Int] = [0, 1, 2], remaining: Double? = nil
    ) -> VariantChoice {
        DefaultVariantPolicy().ruleChoice(
            in: situation(
                current: current, estimate: estimate, buffer: buffer, eligible: eligible, remaining: remaining,
                samples: []))
    }

    func test_withoutEstimate_keeps() {
        XCTAssertEqual(choose(current: 0, estimate: nil, buffer: 8), VariantChoice(index: 0, reason: .hold))
    }

    func test_upOnlyWithMargin_andWhenTheSegmentArrivesInTime() {
        // Two segments buffered: 1.23 × 2.6 Mb/s covers the top (1.79), which arrives in 1.38 s.
        XCTAssertEqual(
            rules(current: 0, estimate: 2_600_000, buffer: 4), VariantChoice(index: 2, reason: .bandwidthUp))
        // A segment buffered: 0.85 × 2.0 = 1.7: the middle only.
        XCTAssertEqual(
            rules(current: 0, estimate: 2_000_000, buffer: 2), VariantChoice(index: 1, reason: .bandwidthUp))
        // At the start (nothing buffered beyond the first segment), one fast segment is enough: the top's next
        // segment arrives in 0.4 s.
        XCTAssertEqual(
            rules(current: 0, estimate: 9_000_000, buffer: 0), VariantChoice(index: 2, reason: .bandwidthUp))
        // The top would take 1.63 s to arrive: more than 0.8 of the segment being read; the middle, 0.93 s, does not.
        XCTAssertEqual(
            rules(current: 0, estimate: 2_200_000, buffer: 0), VariantChoice(index: 1, reason: .bandwidthUp))
        // A full buffer (8 s) lets 2 × the estimate do: 2.6 Mb/s covers the top; with 4 s, 1.23 × 1.3 does not.
        XCTAssertEqual(
            rules(current: 1, estimate: 1_300_000, buffer: 8), VariantChoice(index: 2, reason: .bandwidthUp))
        XCTAssertEqual(rules(current: 1, estimate: 1_300_000, buffer: 4), VariantChoice(index: 1, reason: .hold))
        // 1.2 × the lowest rung with 4 s buffered: 1.23 × 697 kb/s does not cover the middle; stay on the lowest.
        XCTAssertEqual(rules(current: 0, estimate: 696_960, buffer: 4), VariantChoice(index: 0, reason: .hold))
    }

    /// Between the down share (1.6 × the estimate with 4 s buffered) and the up share (1.23 ×) the variant holds: no
    /// oscillation on a link near a rung.
    func test_holdsBetweenTheDownAndUpThresholds() {
        // Down below 1.0208 / 1.6 Mb/s, up from 1.7908 / 1.233.
        for estimate in stride(from: 660_000.0, to: 1_440_000, by: 20_000) {
            XCTAssertEqual(
                rules(current: 1, estimate: estimate, buffer: 4), VariantChoice(index: 1, reason: .hold),
                "\(estimate)")
        }
    }

    func test_downWhenTheEstimateNoLongerCoversTheVariant() {
        // A segment buffered: 1.2 × 1.4 Mb/s does not cover the top.
        XCTAssertEqual(
            rules(current: 2, estimate: 1_400_000, buffer: 2), VariantChoice(index: 1, reason: .bandwidthDown))
        XCTAssertEqual(
            rules(current: 2, estimate: 700_000, buffer: 2), VariantChoice(index: 0, reason: .bandwidthDown))
        // A full buffer (8 s) absorbs segments above the estimate for a while: 2.4 × 1 Mb/s covers the top,
        // 2.4 × 0.7 does not.
        XCTAssertEqual(rules(current: 2, estimate: 1_000_000, buffer: 8), VariantChoice(index: 2, reason: .hold))
        XCTAssertEqual(
            rules(current: 2, estimate: 700_000, buffer: 8), VariantChoice(index: 1, reason: .bandwidthDown))
    }

    /// Near the end of a video-on-demand item the buffer pays for a higher rung: every remaining segment of it arrives
    /// (at 0.9 × the estimate) before the media ahead runs out; with more left, the usual rules hold.
    func test_nearTheEnd_theBufferCarriesTheRestOnAHigherRung() {
        // 1.3 Mb/s, 4 s buffered: the top is 1.53 × 0.9 × the estimate; its last 2 segments arrive in 6.1 s, within
        // 0.8 × (4 + 2) s + 2 s.
        XCTAssertEqual(
            rules(current: 1, estimate: 1_300_000, buffer: 4, remaining: 4),
            VariantChoice(index: 2, reason: .endOfItem))
        XCTAssertEqual(
            rules(current: 1, estimate: 1_300_000, buffer: 4, remaining: 20), VariantChoice(index: 1, reason: .hold))
        XCTAssertEqual(rules(current: 1, estimate: 1_300_000, buffer: 4), VariantChoice(index: 1, reason: .hold))
        // The last segment of the top rung arrives in 4.4 s at 0.9 Mb/s, within 0.8 × 6 s: it stays; two would not.
        XCTAssertEqual(
            rules(current: 2, estimate: 900_000, buffer: 4, remaining: 2), VariantChoice(index: 2, reason: .hold))
        XCTAssertEqual(
            rules(current: 2, estimate: 900_000, buffer: 4, remaining: 4),
            VariantChoice(index: 1, reason: .bandwidthDown))
    }

    func test_oneRungDownBeforeTheBufferRunsDry() {
        // 1.9 Mb/s covers the top, but its next segment (1.88 s) would arrive after 0.8 of the segment being read,
        // with nothing buffered beyond it.
        XCTAssertEqual(rules(current: 2, estimate: 1_900_000, buffer: 0), VariantChoice(index: 1, reason: .bufferLow))
        // With margin the buffer alone does not step down.
        XCTAssertEqual(rules(current: 2, estimate: 9_000_000, buffer: 0), VariantChoice(index: 2, reason: .hold))
    }

    /// The plan climbs when the buffer carries the higher rung through the plan and the rules would keep it at its
    /// end; a link steady at 1.3 Mb/s (five samples) plans on 0.8625 × 1.3 = 1.12 Mb/s.
    func test_plan_climbsWhenTheBufferCarriesIt() {
        let steady = [Double](repeating: 1_300_000, count: 5)
        // 10 s measured: four top segments of 3.2 s each leave 7.2 s ahead, where 2.1 × 1.3 Mb/s still keeps the top.
        XCTAssertEqual(
            choose(current: 1, estimate: 1_300_000, buffer: 10, samples: steady),
            VariantChoice(index: 2, reason: .bandwidthUp))
        // 2 s measured: the top would stall within the plan.
        XCTAssertEqual(
            choose(current: 1, estimate: 1_300_000, buffer: 2, samples: steady), VariantChoice(index: 1, reason: .hold))
        // The rules alone stay (1.7908 is above 1.3 × their up share with 4 s buffered).
        XCTAssertEqual(rules(current: 1, estimate: 1_300_000, buffer: 4), VariantChoice(index: 1, reason: .hold))
    }

    /// A down needs both the plan and the rules: the plan's first rung, for the rules' reason.
    func test_plan_downOnlyWhenTheRulesAgree() {
        // 1.3 Mb/s with 10 s measured: the rules keep the top (2.4 × the estimate with a full buffer).
        XCTAssertEqual(
            choose(current: 2, estimate: 1_300_000, buffer: 10, samples: [Double](repeating: 1_300_000, count: 5)),
            VariantChoice(index: 2, reason: .hold))
        // 0.7 Mb/s with a segment buffered: both leave the top; the plan steps through the middle (its segment still
        // arrives within the 4 s ahead, and two smaller switches cost less than one large one).
        XCTAssertEqual(
            choose(current: 2, estimate: 700_000, buffer: 2, samples: [Double](repeating: 700_000, count: 5)),
            VariantChoice(index: 1, reason: .bandwidthDown))
    }

    /// The prediction: the harmonic mean of the last five samples, over 1 + the largest amount by which it overshot
    /// one of them (at most 0.2), × 0.875; the estimate stands for a sample when there is none.
    func test_predictedThroughput_isTheDiscountedHarmonicMean() {
        let policy = DefaultVariantPolicy()
        XCTAssertEqual(
            policy.predictedThroughput(samples: [], estimate: 2_000_000), 2_000_000 * 0.875, accuracy: 1e-6)
        XCTAssertEqual(
            policy.predictedThroughput(samples: [1_000_000, 1_000_000], estimate: 5), 1_000_000 * 0.875,
            accuracy: 1e-6)
        // 3 then 1 Mb/s: the mean is 1.5; the second sample was predicted at 3 (an overshoot of 2, capped at 0.2).
        XCTAssertEqual(
            policy.predictedThroughput(samples: [3_000_000, 1_000_000], estimate: 5), 1_500_000 / 1.2 * 0.875,
            accuracy: 1e-6)
        // 1 then 3 Mb/s: the second was predicted at 1, below it (the link got faster): no discount.
        XCTAssertEqual(
            policy.predictedThroughput(samples: [1_000_000, 3_000_000], estimate: 5), 1_500_000 * 0.875,
            accuracy: 1e-6)
    }

    func test_aVariantOutsideTheCaps_leavesAtOnce() {
        XCTAssertEqual(
            choose(current: 2, estimate: 9_000_000, buffer: 8, eligible: [0, 1]), VariantChoice(index: 1, reason: .caps)
        )
        XCTAssertEqual(
            choose(current: 2, estimate: nil, buffer: nil, eligible: [0, 1]), VariantChoice(index: 1, reason: .caps))
        XCTAssertEqual(
            choose(current: 2, estimate: 1_000_000, buffer: 8, eligible: [0, 1]), VariantChoice(index: 0, reason: .caps)
        )
    }

    func test_caps_admitByPeakRateAndResolution() {
        XCTAssertTrue(VariantCaps().admits(ladder[2]))
        XCTAssertFalse(VariantCaps(maximumPeakBitRate: 1_000_000).admits(ladder[1]))
        XCTAssertTrue(VariantCaps(maximumPeakBitRate: 1_020_800).admits(ladder[1]))
        XCTAssertFalse(VariantCaps(maximumResolution: .init(width: 1000, height: 500)).admits(ladder[1]))
        XCTAssertTrue(VariantCaps(maximumResolution: .init(width: 960, height: 540)).admits(ladder[1]))
    }
}
